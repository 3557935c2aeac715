//! Event reasons (and fixed messages) the cloud controllers record, spelled as upstream's
//! `k8s.io/cloud-provider` controllers spell them so event-based checks match either.
//!
//! Sources: `controllers/service/controller.go` and `controllers/route/route_controller.go`
//! (kubernetes/cloud-provider, summarised in migration.md 6.3-6.4).

/// Service controller: about to call `EnsureLoadBalancer` (Normal, "Ensuring load balancer").
pub const ENSURING_LOAD_BALANCER: &str = "EnsuringLoadBalancer";
/// Service controller: `EnsureLoadBalancer` succeeded (Normal, "Ensured load balancer").
pub const ENSURED_LOAD_BALANCER: &str = "EnsuredLoadBalancer";
/// Service controller: a sync failed (Warning, "Error syncing load balancer: <err>").
pub const SYNC_LOAD_BALANCER_FAILED: &str = "SyncLoadBalancerFailed";
/// Service controller: about to delete the load balancer (Normal, "Deleting load balancer").
pub const DELETING_LOAD_BALANCER: &str = "DeletingLoadBalancer";
/// Service controller: cleanup done, finalizer removed (Normal, "Deleted load balancer").
pub const DELETED_LOAD_BALANCER: &str = "DeletedLoadBalancer";
/// Service controller: a delete failed (Warning, "Error deleting load balancer: <err>").
pub const DELETE_LOAD_BALANCER_FAILED: &str = "DeleteLoadBalancerFailed";
/// Service controller: backends updated after a node change (Normal).
pub const UPDATED_LOAD_BALANCER: &str = "UpdatedLoadBalancer";
/// Service controller: backend update failed (Warning).
pub const UPDATE_LOAD_BALANCER_FAILED: &str = "UpdateLoadBalancerFailed";
/// Service controller: no node passes the predicates (Warning).
pub const UNAVAILABLE_LOAD_BALANCER: &str = "UnAvailableLoadBalancer";
/// Route controller: `CreateRoute` failed for a node (Warning).
pub const FAILED_TO_CREATE_ROUTE: &str = "FailedToCreateRoute";

/// Message of [`ENSURING_LOAD_BALANCER`].
pub const ENSURING_LOAD_BALANCER_MESSAGE: &str = "Ensuring load balancer";
/// Message of [`ENSURED_LOAD_BALANCER`].
pub const ENSURED_LOAD_BALANCER_MESSAGE: &str = "Ensured load balancer";
/// Message of [`DELETING_LOAD_BALANCER`].
pub const DELETING_LOAD_BALANCER_MESSAGE: &str = "Deleting load balancer";
/// Message of [`DELETED_LOAD_BALANCER`].
pub const DELETED_LOAD_BALANCER_MESSAGE: &str = "Deleted load balancer";
/// Message of [`UPDATED_LOAD_BALANCER`].
pub const UPDATED_LOAD_BALANCER_MESSAGE: &str = "Updated load balancer with new hosts";
/// Message of [`UNAVAILABLE_LOAD_BALANCER`].
pub const UNAVAILABLE_LOAD_BALANCER_MESSAGE: &str = "There are no available nodes for LoadBalancer";

/// Node condition type the route controller maintains.
pub const NETWORK_UNAVAILABLE: &str = "NetworkUnavailable";
/// `NetworkUnavailable=False` reason once every pod CIDR of the node has a route.
pub const ROUTE_CREATED: &str = "RouteCreated";
/// Message paired with [`ROUTE_CREATED`].
pub const ROUTE_CREATED_MESSAGE: &str = "RouteController created a route";
/// `NetworkUnavailable=True` reason while a route is missing.
pub const NO_ROUTE_CREATED: &str = "NoRouteCreated";
/// Message paired with [`NO_ROUTE_CREATED`].
pub const NO_ROUTE_CREATED_MESSAGE: &str = "RouteController failed to create a route";
