//! Integration tests: the provider against the real `azure-fakes serve` process over HTTPS.

mod arm_transport;
mod cached_lists;
mod cluster;
mod credentials;
mod fake_azure;
mod imds_node_metadata;
mod lb_churn;
mod lb_in_tree;
mod lb_lifecycle;
mod lb_plan;
mod lb_pools;
mod lb_services;
mod models_write_back;
mod node_metadata_arm;
mod resource_models;
mod routes;

mod fake_azure_starts {
    use crate::fake_azure::{FakeAzure, example};

    #[tokio::test]
    async fn the_fake_serves_its_topology() {
        let fake = FakeAzure::start(&example("small.yaml"), &[]);
        assert_eq!(fake.imds.len(), 3, "one IMDS per node of small.yaml");
        let (status, info) = fake.admin(reqwest::Method::GET, "/admin/info", None).await;
        assert_eq!(status, 200, "{info}");
        assert!(fake.ca_file.exists());
        assert_eq!(fake.subscription, "0b1f6471-1bf0-4dda-aec3-111122223333");
        assert_eq!(fake.tenant, "72f988bf-86f1-41af-91ab-2d7cd011db47");
        assert!(fake.journal().await.is_object() || fake.journal().await.is_array());
    }
}
