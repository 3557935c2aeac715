//! Throttle gates: closed by a throttling answer until its `Retry-After`, failing fast meanwhile.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

use crate::arm::ClientKind;

/// Which gate a call goes through: reads are GET/HEAD, writes everything else (upstream's split).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// GET and HEAD.
    Read,
    /// PUT, PATCH, DELETE, POST.
    Write,
}

impl OpKind {
    /// The gate kind of an HTTP method.
    pub fn of(method: &reqwest::Method) -> OpKind {
        if method == reqwest::Method::GET || method == reqwest::Method::HEAD {
            OpKind::Read
        } else {
            OpKind::Write
        }
    }
}

impl std::fmt::Display for OpKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            OpKind::Read => "read",
            OpKind::Write => "write",
        })
    }
}

/// A refusal by a closed gate: nothing was sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GateClosed {
    /// Time until the gate opens.
    pub remaining: Duration,
}

/// One gate: open, or closed until an instant (tokio's clock, so tests can pause time).
#[derive(Debug, Default)]
pub struct Gate {
    closed_until: Mutex<Option<Instant>>,
}

impl Gate {
    /// `Ok` when open; `Err` with the remaining time when closed.
    pub fn check(&self) -> Result<(), GateClosed> {
        let mut closed = self.closed_until.lock().unwrap_or_else(|e| e.into_inner());
        match *closed {
            Some(until) => {
                let now = Instant::now();
                if until > now {
                    Err(GateClosed {
                        remaining: until - now,
                    })
                } else {
                    *closed = None;
                    Ok(())
                }
            }
            None => Ok(()),
        }
    }

    /// Closes the gate for `retry_after` from now; a later closing instant already set is kept.
    pub fn close_for(&self, retry_after: Duration) {
        let until = Instant::now() + retry_after;
        let mut closed = self.closed_until.lock().unwrap_or_else(|e| e.into_inner());
        if closed.is_none_or(|current| current < until) {
            *closed = Some(until);
        }
    }
}

/// Every gate of an ARM client: per client kind and per op kind, plus the subscription-wide pair.
#[derive(Debug, Default)]
pub struct Gates {
    per_client: Mutex<HashMap<(ClientKind, OpKind), std::sync::Arc<Gate>>>,
    subscription_read: Gate,
    subscription_write: Gate,
}

impl Gates {
    /// The gate of `client` for `op`.
    pub fn client(&self, client: ClientKind, op: OpKind) -> std::sync::Arc<Gate> {
        let mut gates = self.per_client.lock().unwrap_or_else(|e| e.into_inner());
        gates.entry((client, op)).or_default().clone()
    }

    /// The subscription-wide gate for `op`.
    pub fn subscription(&self, op: OpKind) -> &Gate {
        match op {
            OpKind::Read => &self.subscription_read,
            OpKind::Write => &self.subscription_write,
        }
    }

    /// `Ok` when both the client's and the subscription's gates are open; else the longer wait.
    pub fn check(&self, client: ClientKind, op: OpKind) -> Result<(), GateClosed> {
        let own = self.client(client, op).check();
        let shared = self.subscription(op).check();
        match (own, shared) {
            (Ok(()), Ok(())) => Ok(()),
            (Err(a), Err(b)) => Err(if a.remaining >= b.remaining { a } else { b }),
            (Err(e), Ok(())) | (Ok(()), Err(e)) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_gate_closes_until_retry_after_then_opens() {
        let gate = Gate::default();
        assert_eq!(gate.check(), Ok(()));
        gate.close_for(Duration::from_secs(10));
        assert_eq!(
            gate.check(),
            Err(GateClosed {
                remaining: Duration::from_secs(10)
            })
        );
        tokio::time::advance(Duration::from_secs(4)).await;
        assert_eq!(
            gate.check(),
            Err(GateClosed {
                remaining: Duration::from_secs(6)
            })
        );
        // A shorter Retry-After does not reopen it earlier.
        gate.close_for(Duration::from_secs(1));
        assert_eq!(
            gate.check().map_err(|e| e.remaining),
            Err(Duration::from_secs(6))
        );
        tokio::time::advance(Duration::from_secs(6)).await;
        assert_eq!(gate.check(), Ok(()));
    }

    #[tokio::test(start_paused = true)]
    async fn read_and_write_gates_are_separate_and_subscription_gates_are_shared() {
        let gates = Gates::default();
        gates
            .client(ClientKind::VirtualMachine, OpKind::Read)
            .close_for(Duration::from_secs(30));
        assert!(
            gates
                .check(ClientKind::VirtualMachine, OpKind::Read)
                .is_err()
        );
        assert_eq!(
            gates.check(ClientKind::VirtualMachine, OpKind::Write),
            Ok(())
        );
        assert_eq!(gates.check(ClientKind::LoadBalancer, OpKind::Read), Ok(()));

        gates
            .subscription(OpKind::Write)
            .close_for(Duration::from_secs(5));
        assert_eq!(
            gates
                .check(ClientKind::LoadBalancer, OpKind::Write)
                .map_err(|e| e.remaining),
            Err(Duration::from_secs(5))
        );
        assert_eq!(
            gates
                .check(ClientKind::VirtualMachine, OpKind::Read)
                .map_err(|e| e.remaining),
            Err(Duration::from_secs(30))
        );
        tokio::time::advance(Duration::from_secs(30)).await;
        assert_eq!(
            gates.check(ClientKind::VirtualMachine, OpKind::Read),
            Ok(())
        );
        assert_eq!(gates.check(ClientKind::LoadBalancer, OpKind::Write), Ok(()));
    }

    #[test]
    fn methods_map_to_upstreams_split() {
        assert_eq!(OpKind::of(&reqwest::Method::GET), OpKind::Read);
        assert_eq!(OpKind::of(&reqwest::Method::HEAD), OpKind::Read);
        assert_eq!(OpKind::of(&reqwest::Method::PUT), OpKind::Write);
        assert_eq!(OpKind::of(&reqwest::Method::DELETE), OpKind::Write);
        assert_eq!(OpKind::of(&reqwest::Method::PATCH), OpKind::Write);
    }
}
