//! The live fault schedule: ordered rules with their match/apply counters and one seeded ChaCha RNG,
//! so a run with the same seed and the same request order injects the same faults.

use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use parking_lot::Mutex;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::rule::{CompiledRule, FaultKind, FaultRule, RuleError};
use crate::journal::Surface;

/// A whole schedule: the RNG seed and the rules, in evaluation order (faults file / admin PUT).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FaultPlan {
    /// Seed of the probability draws.
    #[serde(default)]
    pub seed: u64,
    /// Rules; the first terminal fault that applies wins, latency and LRO failures accumulate.
    #[serde(default)]
    pub rules: Vec<FaultRule>,
}

/// What the fault layer must do with one request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Decision {
    /// Total injected delay.
    pub latency: Duration,
    /// Operation error to force on the LRO this request starts.
    pub lro_failure: Option<(String, String)>,
    /// Fault answering instead of ARM (429, 5xx, 412, reset).
    pub terminal: Option<FaultKind>,
    /// `id:label` of every rule applied, for the journal.
    pub applied: Vec<String>,
}

/// A rule with its counters, as the admin API lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleStatus {
    /// The rule.
    #[serde(flatten)]
    pub rule: FaultRule,
    /// Requests that matched method + path.
    pub matched: u64,
    /// Requests the fault was applied to.
    pub applied: u64,
}

/// The schedule as the admin API shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FaultListing {
    /// Seed in use.
    pub seed: u64,
    /// Rules in order with counters.
    pub rules: Vec<RuleStatus>,
}

struct Active {
    compiled: CompiledRule,
    matched: u64,
    applied: u64,
}

struct State {
    seed: u64,
    rng: ChaCha8Rng,
    rules: Vec<Active>,
    next_id: u64,
}

/// Shared fault schedule of one fake cloud.
pub struct FaultEngine {
    state: Mutex<State>,
    /// One bit per surface with at least one rule, so unaffected requests skip the lock.
    armed: AtomicU8,
}

fn surface_bit(surface: Surface) -> u8 {
    match surface {
        Surface::Arm => 1,
        Surface::Imds => 2,
        Surface::Entra => 4,
        Surface::Metadata => 8,
        Surface::Admin => 16,
        Surface::Proxy => 32,
    }
}

fn armed_bits(rules: &[Active]) -> u8 {
    rules
        .iter()
        .fold(0, |bits, a| bits | surface_bit(a.compiled.surface()))
}

impl std::fmt::Debug for FaultEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FaultEngine")
            .field("armed", &self.armed.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl Default for FaultEngine {
    fn default() -> Self {
        Self::new(0)
    }
}

impl FaultEngine {
    /// An empty schedule drawing from `seed`.
    pub fn new(seed: u64) -> Self {
        Self {
            state: Mutex::new(State {
                seed,
                rng: ChaCha8Rng::seed_from_u64(seed),
                rules: Vec::new(),
                next_id: 1,
            }),
            armed: AtomicU8::new(0),
        }
    }

    /// Replaces seed and rules (the RNG restarts from the seed). Nothing changes on error.
    pub fn replace(&self, plan: FaultPlan) -> Result<Vec<String>, RuleError> {
        let mut state = self.state.lock();
        let mut next_id = 1;
        let compiled = compile_all(plan.rules, &mut next_id)?;
        let ids = compiled.iter().map(|a| id_of(&a.compiled)).collect();
        *state = State {
            seed: plan.seed,
            rng: ChaCha8Rng::seed_from_u64(plan.seed),
            rules: compiled,
            next_id,
        };
        self.armed
            .store(armed_bits(&state.rules), Ordering::Release);
        Ok(ids)
    }

    /// Appends rules; returns their ids. Nothing changes on error.
    pub fn add(&self, rules: Vec<FaultRule>) -> Result<Vec<String>, RuleError> {
        let mut state = self.state.lock();
        let mut next_id = state.next_id;
        let compiled = compile_all(rules, &mut next_id)?;
        let ids: Vec<String> = compiled.iter().map(|a| id_of(&a.compiled)).collect();
        state.next_id = next_id;
        state.rules.extend(compiled);
        self.armed
            .store(armed_bits(&state.rules), Ordering::Release);
        Ok(ids)
    }

    /// Removes the rule with `id`; false when there is none.
    pub fn remove(&self, id: &str) -> bool {
        let mut state = self.state.lock();
        let before = state.rules.len();
        state
            .rules
            .retain(|a| a.compiled.rule.id.as_deref() != Some(id));
        self.armed
            .store(armed_bits(&state.rules), Ordering::Release);
        state.rules.len() != before
    }

    /// Removes every rule (the seed and RNG position stay).
    pub fn clear(&self) {
        self.state.lock().rules.clear();
        self.armed.store(0, Ordering::Release);
    }

    /// Current schedule with counters.
    pub fn list(&self) -> FaultListing {
        let state = self.state.lock();
        FaultListing {
            seed: state.seed,
            rules: state
                .rules
                .iter()
                .map(|a| RuleStatus {
                    rule: a.compiled.rule.clone(),
                    matched: a.matched,
                    applied: a.applied,
                })
                .collect(),
        }
    }

    /// Decides the faults for one request of `surface`; `None` (cheaply) when nothing applies.
    pub fn decide(&self, surface: Surface, method: &http::Method, path: &str) -> Option<Decision> {
        if self.armed.load(Ordering::Acquire) & surface_bit(surface) == 0 {
            return None;
        }
        let mut state = self.state.lock();
        let State { rng, rules, .. } = &mut *state;
        let mut decision = Decision::default();
        for active in rules.iter_mut() {
            if !active.compiled.matches(surface, method, path) {
                continue;
            }
            let rule = &active.compiled.rule;
            if rule.count.is_some_and(|n| active.applied >= n) {
                continue;
            }
            if matches!(rule.fault, FaultKind::LroFailed { .. }) && decision.lro_failure.is_some() {
                continue;
            }
            active.matched += 1;
            if let Some(p) = rule.probability
                && rng.random::<f64>() >= p
            {
                continue;
            }
            active.applied += 1;
            decision.applied.push(format!(
                "{}:{}",
                id_of(&active.compiled),
                rule.fault.label()
            ));
            match &rule.fault {
                FaultKind::Latency { ms } => decision.latency += Duration::from_millis(*ms),
                FaultKind::LroFailed { code, message } => {
                    decision.lro_failure = Some((code.clone(), message.clone()))
                }
                terminal => {
                    decision.terminal = Some(terminal.clone());
                    break;
                }
            }
        }
        (!decision.applied.is_empty()).then_some(decision)
    }
}

fn id_of(rule: &CompiledRule) -> String {
    rule.rule.id.clone().unwrap_or_default()
}

fn compile_all(rules: Vec<FaultRule>, next_id: &mut u64) -> Result<Vec<Active>, RuleError> {
    rules
        .into_iter()
        .enumerate()
        .map(|(i, rule)| {
            let default_id = format!("fault-{next_id}");
            *next_id += 1;
            CompiledRule::compile(rule, &format!("rules[{i}]"), default_id).map(|compiled| Active {
                compiled,
                matched: 0,
                applied: 0,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(fault: FaultKind) -> FaultRule {
        FaultRule {
            id: None,
            surface: None,
            method: None,
            path: Some("/subscriptions/**".into()),
            path_regex: None,
            fault,
            count: None,
            probability: None,
        }
    }

    const PATH: &str = "/subscriptions/s/resourceGroups/rg";

    #[test]
    fn nothing_scheduled_decides_nothing() {
        assert_eq!(
            FaultEngine::new(1).decide(Surface::Arm, &http::Method::GET, PATH),
            None
        );
    }

    #[test]
    fn count_limits_applications() {
        let e = FaultEngine::new(1);
        let ids = e
            .add(vec![FaultRule {
                count: Some(2),
                ..rule(FaultKind::Reset)
            }])
            .unwrap();
        assert_eq!(ids, vec!["fault-1".to_string()]);
        assert!(e.decide(Surface::Arm, &http::Method::GET, PATH).is_some());
        assert!(e.decide(Surface::Arm, &http::Method::GET, PATH).is_some());
        assert_eq!(e.decide(Surface::Arm, &http::Method::GET, PATH), None);
        assert_eq!(e.decide(Surface::Arm, &http::Method::GET, "/other"), None);
        let listing = e.list();
        assert_eq!((listing.rules[0].matched, listing.rules[0].applied), (2, 2));
    }

    #[test]
    fn latency_accumulates_and_first_terminal_wins() {
        let e = FaultEngine::new(1);
        e.add(vec![
            rule(FaultKind::Latency { ms: 5 }),
            rule(FaultKind::LroFailed {
                code: "C".into(),
                message: "M".into(),
            }),
            rule(FaultKind::Status {
                status: 503,
                code: None,
                retry_after_secs: None,
            }),
            rule(FaultKind::Reset),
        ])
        .unwrap();
        let d = e.decide(Surface::Arm, &http::Method::PUT, PATH).unwrap();
        assert_eq!(d.latency, Duration::from_millis(5));
        assert_eq!(d.lro_failure, Some(("C".into(), "M".into())));
        assert_eq!(
            d.terminal,
            Some(FaultKind::Status {
                status: 503,
                code: None,
                retry_after_secs: None
            })
        );
        assert_eq!(
            d.applied,
            vec![
                "fault-1:latency",
                "fault-2:lro-failed",
                "fault-3:status-503"
            ]
        );
        assert_eq!(e.list().rules[3].matched, 0);
    }

    #[test]
    fn probabilities_are_reproducible_from_the_seed() {
        let run = |seed| {
            let e = FaultEngine::new(0);
            e.replace(FaultPlan {
                seed,
                rules: vec![FaultRule {
                    probability: Some(0.5),
                    ..rule(FaultKind::Reset)
                }],
            })
            .unwrap();
            (0..64)
                .map(|_| e.decide(Surface::Arm, &http::Method::GET, PATH).is_some())
                .collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
        let hits = run(7).iter().filter(|h| **h).count();
        assert!((16..=48).contains(&hits), "{hits}");
    }

    #[test]
    fn rules_only_see_their_surface() {
        let e = FaultEngine::new(0);
        e.add(vec![FaultRule {
            path: Some("/imds/*/metadata/**".into()),
            ..rule(FaultKind::Reset)
        }])
        .unwrap();
        let imds = "/imds/node-0/metadata/instance";
        assert_eq!(e.decide(Surface::Arm, &http::Method::GET, imds), None);
        assert_eq!(e.decide(Surface::Entra, &http::Method::GET, imds), None);
        assert_eq!(
            e.decide(Surface::Imds, &http::Method::GET, imds)
                .unwrap()
                .terminal,
            Some(FaultKind::Reset)
        );
        assert_eq!(e.list().rules[0].rule.surface, Some(Surface::Imds));
    }

    #[test]
    fn remove_clear_and_failed_replace_keep_state_consistent() {
        let e = FaultEngine::new(0);
        e.add(vec![
            rule(FaultKind::Reset),
            FaultRule {
                id: Some("mine".into()),
                ..rule(FaultKind::PreconditionFailed)
            },
        ])
        .unwrap();
        assert!(e.remove("fault-1"));
        assert!(!e.remove("fault-1"));
        assert_eq!(
            e.decide(Surface::Arm, &http::Method::GET, PATH)
                .unwrap()
                .terminal,
            Some(FaultKind::PreconditionFailed)
        );
        let bad = FaultPlan {
            seed: 1,
            rules: vec![FaultRule {
                probability: Some(2.0),
                ..rule(FaultKind::Reset)
            }],
        };
        assert!(e.replace(bad).is_err());
        assert_eq!(e.list().rules.len(), 1);
        e.clear();
        assert_eq!(e.decide(Surface::Arm, &http::Method::GET, PATH), None);
    }
}
