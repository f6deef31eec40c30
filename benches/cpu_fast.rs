//! Exact vs fast CPU evaluator throughput (placeholder while the bench is written).

fn main() {}
