//! Tests of the LB plan.
