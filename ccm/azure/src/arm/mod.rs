pub mod api_versions;
pub mod resource_id;
pub mod resources;
