//! `running_managed_controllers{manager, name}`: which controllers run in this process, for the
//! metric and the per-controller health checks.

use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

/// The gauge family, 1 while a controller runs.
/// **[infer]** label names follow k8s.io/controller-manager's `ControllerManagerMetrics`.
#[derive(Clone)]
pub struct RunningControllers {
    family: Family<Vec<(String, String)>, Gauge>,
    manager: &'static str,
}

impl RunningControllers {
    /// Registers the family for the component `manager` (`cloud-controller-manager`, ...).
    pub fn register(registry: &mut Registry, manager: &'static str) -> Self {
        let this = RunningControllers {
            family: Family::default(),
            manager,
        };
        registry.register(
            "running_managed_controllers",
            "Indicates where instances of a controller are currently running",
            this.family.clone(),
        );
        this
    }

    fn labels(&self, name: &str) -> Vec<(String, String)> {
        vec![
            ("manager".to_owned(), self.manager.to_owned()),
            ("name".to_owned(), name.to_owned()),
        ]
    }

    pub(super) fn set(&self, name: &str, value: i64) {
        self.family.get_or_create(&self.labels(name)).set(value);
    }

    /// Whether the controller `name` (canonical) was started and has not stopped.
    pub fn is_running(&self, name: &str) -> bool {
        self.family.get_or_create(&self.labels(name)).get() == 1
    }
}
