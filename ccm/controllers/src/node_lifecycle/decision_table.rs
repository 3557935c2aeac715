//! The lifecycle decision table, snapshotted whole, and the safety properties checked over random
//! node and cloud states.

use proptest::prelude::*;

use super::decision::{Answer, CloudState, NodeState, decide};

const ANSWERS: [Answer; 4] = [Answer::Yes, Answer::No, Answer::Error, Answer::NotAsked];

fn answer() -> impl Strategy<Value = Answer> {
    proptest::sample::select(ANSWERS.to_vec())
}

#[test]
fn decision_table() {
    let mut rows = Vec::new();
    for ready in [true, false] {
        for has_shutdown_taint in [false, true] {
            for has_out_of_service_taint in [false, true] {
                for exists in [Answer::Yes, Answer::No, Answer::Error] {
                    for shutdown in ANSWERS {
                        // shutdown is asked exactly when the instance exists
                        if (exists == Answer::Yes) == (shutdown == Answer::NotAsked) {
                            continue;
                        }
                        let state = NodeState {
                            ready,
                            has_shutdown_taint,
                            has_out_of_service_taint,
                        };
                        let cloud = CloudState { exists, shutdown };
                        let d = decide(&state, &cloud);
                        rows.push(format!(
                            "ready={ready:<5} shutdown_taint={has_shutdown_taint:<5} oos_taint={has_out_of_service_taint:<5} exists={exists:?} shutdown={shutdown:?} => delete={} add={:?} remove={:?}",
                            d.delete, d.add_taints, d.remove_taints
                        ));
                    }
                }
            }
        }
    }
    insta::assert_snapshot!(rows.join("\n"));
}

proptest! {
    /// A Ready node is never deleted and a cloud error never deletes, whatever else holds.
    #[test]
    fn never_deletes_ready_nodes_or_on_cloud_errors(
        ready in any::<bool>(),
        has_shutdown_taint in any::<bool>(),
        has_out_of_service_taint in any::<bool>(),
        exists in answer(),
        shutdown in answer(),
    ) {
        let state = NodeState { ready, has_shutdown_taint, has_out_of_service_taint };
        let d = decide(&state, &CloudState { exists, shutdown });
        if ready || exists != Answer::No {
            prop_assert!(!d.delete, "{state:?} exists={exists:?} => {d:?}");
        }
        if d.delete {
            prop_assert!(d.add_taints.is_empty() && d.remove_taints.is_empty());
        }
        if ready {
            prop_assert!(d.add_taints.is_empty());
        } else {
            prop_assert!(d.remove_taints.is_empty());
        }
    }
}
