//! An in-memory provider written with plain `async fn` satisfies the traits, and generic callers
//! can spawn its futures on tokio's multi-threaded runtime (the `Send` bound holds).

use std::time::Duration;

use ccm_cloud::{CloudError, InstanceMetadata, InstancesV2, Retry};
use k8s_openapi::api::core::v1::Node;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

#[derive(Debug, thiserror::Error)]
#[error("memory provider: {0}")]
struct MemoryError(&'static str);

struct MemoryInstances;

impl InstancesV2 for MemoryInstances {
    type Error = MemoryError;

    async fn instance_exists(&self, node: &Node) -> Result<bool, CloudError<MemoryError>> {
        Ok(node.metadata.name.as_deref() == Some("present"))
    }

    async fn instance_shutdown(&self, _node: &Node) -> Result<bool, CloudError<MemoryError>> {
        Err(CloudError::Provider {
            retry: Retry::After(Duration::from_secs(2)),
            source: MemoryError("busy"),
        })
    }

    async fn instance_metadata(
        &self,
        node: &Node,
    ) -> Result<InstanceMetadata, CloudError<MemoryError>> {
        match node.metadata.name.as_deref() {
            Some("present") => Ok(InstanceMetadata {
                provider_id: "memory:///present".to_string(),
                ..InstanceMetadata::default()
            }),
            _ => Err(CloudError::InstanceNotFound),
        }
    }
}

fn node(name: &str) -> Node {
    Node {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            ..ObjectMeta::default()
        },
        ..Node::default()
    }
}

async fn metadata_on_worker<I: InstancesV2 + 'static>(
    instances: std::sync::Arc<I>,
    node: Node,
) -> Result<InstanceMetadata, CloudError<I::Error>> {
    tokio::spawn(async move { instances.instance_metadata(&node).await })
        .await
        .expect("task joined")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generic_callers_spawn_provider_futures() {
    let instances = std::sync::Arc::new(MemoryInstances);
    let found = metadata_on_worker(instances.clone(), node("present"))
        .await
        .expect("present node has metadata");
    assert_eq!(found.provider_id, "memory:///present");
    let missing = metadata_on_worker(instances.clone(), node("gone")).await;
    assert!(matches!(missing, Err(e) if e.is_instance_not_found()));
    assert!(
        instances
            .instance_exists(&node("present"))
            .await
            .expect("exists")
    );
    let shutdown = instances.instance_shutdown(&node("present")).await;
    let err = shutdown.expect_err("busy");
    assert!(err.is_retryable());
    assert_eq!(err.retry_after(), Some(Duration::from_secs(2)));
}

mod whole_provider {
    //! A provider offering every interface, used through the `Provider` root the way the
    //! controllers will: generic code reaching each interface through its associated type.

    use ccm_cloud::{CloudError, LoadBalancer, NodeView, Provider, Route, Routes, Zone, Zones};
    use k8s_openapi::api::core::v1::{LoadBalancerIngress, LoadBalancerStatus, Node, Service};

    use super::{MemoryError, MemoryInstances};

    struct MemoryZones;
    struct MemoryLoadBalancers;
    struct MemoryRoutes;

    impl Zones for MemoryZones {
        type Error = MemoryError;

        async fn get_zone(&self) -> Result<Zone, CloudError<MemoryError>> {
            Ok(Zone {
                failure_domain: "westeurope-1".into(),
                region: "westeurope".into(),
            })
        }

        async fn get_zone_by_provider_id(
            &self,
            _provider_id: &str,
        ) -> Result<Zone, CloudError<MemoryError>> {
            self.get_zone().await
        }

        async fn get_zone_by_node_name(
            &self,
            _node_name: &str,
        ) -> Result<Zone, CloudError<MemoryError>> {
            Err(CloudError::NotImplemented {
                operation: "Zones::get_zone_by_node_name",
            })
        }
    }

    impl LoadBalancer for MemoryLoadBalancers {
        type Error = MemoryError;

        async fn get_load_balancer(
            &self,
            _cluster_name: &str,
            _service: &Service,
        ) -> Result<(LoadBalancerStatus, bool), CloudError<MemoryError>> {
            Ok((LoadBalancerStatus::default(), false))
        }

        fn get_load_balancer_name(&self, cluster_name: &str, _service: &Service) -> String {
            cluster_name.to_string()
        }

        async fn ensure_load_balancer(
            &self,
            _cluster_name: &str,
            _service: &Service,
            nodes: &[&dyn NodeView],
        ) -> Result<LoadBalancerStatus, CloudError<MemoryError>> {
            Ok(LoadBalancerStatus {
                ingress: Some(vec![LoadBalancerIngress {
                    ip: Some(format!("192.0.2.{}", nodes.len())),
                    ..LoadBalancerIngress::default()
                }]),
            })
        }

        async fn update_load_balancer(
            &self,
            _cluster_name: &str,
            _service: &Service,
            _nodes: &[&dyn NodeView],
        ) -> Result<(), CloudError<MemoryError>> {
            Ok(())
        }

        async fn ensure_load_balancer_deleted(
            &self,
            _cluster_name: &str,
            _service: &Service,
        ) -> Result<(), CloudError<MemoryError>> {
            Ok(())
        }
    }

    impl Routes for MemoryRoutes {
        type Error = MemoryError;

        async fn list_routes(
            &self,
            cluster_name: &str,
        ) -> Result<Vec<Route>, CloudError<MemoryError>> {
            Ok(vec![Route {
                name: format!("{cluster_name}-node0"),
                target_node: "node0".into(),
                target_node_addresses: Vec::new(),
                destination_cidr: "10.244.0.0/24".parse().map_err(|_| CloudError::Provider {
                    retry: ccm_cloud::Retry::Never,
                    source: MemoryError("bad cidr"),
                })?,
                blackhole: false,
            }])
        }

        async fn create_route(
            &self,
            _cluster_name: &str,
            _name_hint: &str,
            _route: &Route,
        ) -> Result<(), CloudError<MemoryError>> {
            Ok(())
        }

        async fn delete_route(
            &self,
            _cluster_name: &str,
            _route: &Route,
        ) -> Result<(), CloudError<MemoryError>> {
            Ok(())
        }
    }

    struct Memory {
        instances: MemoryInstances,
        zones: MemoryZones,
        load_balancers: MemoryLoadBalancers,
    }

    impl Provider for Memory {
        type Error = MemoryError;
        type Instances = MemoryInstances;
        type Zones = MemoryZones;
        type LoadBalancer = MemoryLoadBalancers;
        type Routes = MemoryRoutes;

        fn provider_name(&self) -> &'static str {
            "memory"
        }
        fn instances_v2(&self) -> Option<&MemoryInstances> {
            Some(&self.instances)
        }
        fn zones(&self) -> Option<&MemoryZones> {
            Some(&self.zones)
        }
        fn load_balancer(&self) -> Option<&MemoryLoadBalancers> {
            Some(&self.load_balancers)
        }
        fn routes(&self) -> Option<&MemoryRoutes> {
            None
        }
    }

    /// What a service controller would do, written only against the seam.
    async fn ingress_ip<P: Provider>(provider: &P, nodes: &[&dyn NodeView]) -> Option<String> {
        let lb = provider.load_balancer()?;
        let status = lb
            .ensure_load_balancer("kubernetes", &Service::default(), nodes)
            .await
            .ok()?;
        status.ingress?.first()?.ip.clone()
    }

    #[tokio::test]
    async fn generic_code_reaches_every_interface_through_the_root() {
        let provider = Memory {
            instances: MemoryInstances,
            zones: MemoryZones,
            load_balancers: MemoryLoadBalancers,
        };
        assert_eq!(provider.provider_name(), "memory");
        assert!(provider.has_cluster_id());
        assert_eq!(
            ingress_ip(&provider, &[&Node::default(), &Node::default()])
                .await
                .as_deref(),
            Some("192.0.2.2")
        );
        let zones = provider.zones().expect("zones offered");
        assert_eq!(zones.get_zone().await.expect("zone").region, "westeurope");
        let err = zones
            .get_zone_by_node_name("n")
            .await
            .expect_err("not implemented");
        assert!(!err.is_retryable());
        assert!(provider.routes().is_none());
        let routes = MemoryRoutes
            .list_routes("kubernetes")
            .await
            .expect("routes");
        assert_eq!(routes[0].destination_cidr.to_string(), "10.244.0.0/24");
        assert!(provider.instances_v2().is_some());
    }
}
