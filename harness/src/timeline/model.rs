//! The timeline as plain data: lanes of spans and ticks, vertical steps and violations, every time
//! in milliseconds relative to the switch start (or the first record when there was no switch).

use serde::Serialize;

/// One scenario's picture, ready to draw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Timeline {
    /// Scenario name (the picture's title).
    pub title: String,
    /// Unix epoch milliseconds of time 0 (the switch start).
    pub origin_ms: i64,
    /// First time drawn, relative.
    pub start_ms: i64,
    /// Last time drawn, relative (always after `start_ms`).
    pub end_ms: i64,
    /// Lanes, top to bottom.
    pub lanes: Vec<Lane>,
    /// Switch steps and phase boundaries, in time order.
    pub steps: Vec<Step>,
    /// Failed checks, in the outcome's order.
    pub violations: Vec<Violation>,
}

/// What a lane shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LaneGroup {
    /// A manager process (its runs, its cloud-loop activity and its ARM writes).
    Process,
    /// A Lease (its holders).
    Lease,
    /// A LoadBalancer Service's data path.
    Service,
    /// Node initialisation and churn.
    Nodes,
}

/// One horizontal lane.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Lane {
    /// Kind of lane.
    pub group: LaneGroup,
    /// Name shown at the left.
    pub label: String,
    /// Intervals, in time order.
    pub spans: Vec<Span>,
    /// Instants, in time order.
    pub ticks: Vec<Tick>,
}

/// An interval on a lane.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Span {
    /// Start, relative ms.
    pub from_ms: i64,
    /// End, relative ms.
    pub to_ms: i64,
    /// What it means.
    pub kind: SpanKind,
    /// Hover text (holder name, state).
    pub note: String,
}

/// The meaning of a span.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SpanKind {
    /// The process was running.
    Alive,
    /// The process ran its cloud loops (held their Lease, or needed none).
    Active,
    /// The Lease was held by an in-tree kube-controller-manager.
    HeldInTree,
    /// The Lease was held by a cloud-controller-manager.
    HeldOutOfTree,
    /// The Lease was held by an identity no process of the run had.
    HeldOther,
    /// The Service's frontend had a rule and a Ready backend.
    Up,
    /// The Service had served before and did not now: downtime.
    Down,
    /// The Service had not served yet (being provisioned).
    Pending,
}

/// An instant on a lane.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Tick {
    /// When, relative ms.
    pub at_ms: i64,
    /// What happened.
    pub kind: TickKind,
    /// Hover text.
    pub note: String,
}

/// The meaning of a tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "type")]
pub enum TickKind {
    /// An ARM write (PUT/PATCH/DELETE/POST) by the lane's process.
    Write {
        /// Resource type written.
        resource: ResourceKind,
        /// Answered 429 (throttled).
        throttled: bool,
        /// Answered another 4xx/5xx.
        failed: bool,
    },
    /// A node became initialised (taint gone, providerID set).
    NodeInit,
    /// A node (its VM) was added.
    NodeAdded,
    /// A node's VM was deleted.
    NodeRemoved,
}

/// The ARM resource type of a write (colours the mark).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ResourceKind {
    /// `Microsoft.Network/loadBalancers`.
    LoadBalancer,
    /// `Microsoft.Network/publicIPAddresses`.
    PublicIp,
    /// `Microsoft.Network/networkSecurityGroups`.
    SecurityGroup,
    /// `Microsoft.Network/routeTables`.
    RouteTable,
    /// `Microsoft.Network/networkInterfaces`.
    NetworkInterface,
    /// `Microsoft.Compute/*` (VMs, scale sets).
    Compute,
    /// Anything else.
    Other,
}

impl ResourceKind {
    /// Every kind, in legend order.
    pub const ALL: [ResourceKind; 7] = [
        ResourceKind::LoadBalancer,
        ResourceKind::PublicIp,
        ResourceKind::SecurityGroup,
        ResourceKind::RouteTable,
        ResourceKind::NetworkInterface,
        ResourceKind::Compute,
        ResourceKind::Other,
    ];

    /// Short name for legends.
    pub fn label(self) -> &'static str {
        match self {
            ResourceKind::LoadBalancer => "load balancer",
            ResourceKind::PublicIp => "public IP",
            ResourceKind::SecurityGroup => "NSG",
            ResourceKind::RouteTable => "route table",
            ResourceKind::NetworkInterface => "NIC",
            ResourceKind::Compute => "compute",
            ResourceKind::Other => "other",
        }
    }

    /// The kind of an ARM path's resource type.
    pub fn of_path(path: &str) -> ResourceKind {
        let lower = path.to_ascii_lowercase();
        let Some(rest) = lower.split("/providers/").nth(1) else {
            return ResourceKind::Other;
        };
        let mut parts = rest.split('/');
        match (parts.next(), parts.next()) {
            (Some("microsoft.compute"), _) => ResourceKind::Compute,
            (Some("microsoft.network"), Some("loadbalancers")) => ResourceKind::LoadBalancer,
            (Some("microsoft.network"), Some("publicipaddresses")) => ResourceKind::PublicIp,
            (Some("microsoft.network"), Some("networksecuritygroups")) => {
                ResourceKind::SecurityGroup
            }
            (Some("microsoft.network"), Some("routetables")) => ResourceKind::RouteTable,
            (Some("microsoft.network"), Some("networkinterfaces")) => {
                ResourceKind::NetworkInterface
            }
            _ => ResourceKind::Other,
        }
    }
}

/// A labelled vertical line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    /// When, relative ms.
    pub at_ms: i64,
    /// Label (`switch`, `switched`, `after`, `kill cloud-controller-manager-0`).
    pub label: String,
}

/// A failed check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// Check name.
    pub check: String,
    /// When it was first violated, relative ms, if the result says.
    pub at_ms: Option<i64>,
    /// The check's reason.
    pub reason: String,
}

impl Timeline {
    /// Relative milliseconds as text: `+1.2s`, `-0.4s` (fixed format, one decimal).
    pub fn seconds(ms: i64) -> String {
        let sign = if ms < 0 { '-' } else { '+' };
        let abs = ms.unsigned_abs();
        format!("{sign}{}.{}s", abs / 1000, (abs % 1000) / 100)
    }
}
