//! A ready-made locomotion state machine: idle, walk and run, switched by a `speed` parameter
//! with cross-fades and hysteresis (what `sinew crowd` and the Bevy example drive).

use super::{
    Compare, Condition, ParameterDef, ParameterKind, StateMachineDef, TransitionDef, Value,
};

/// States `idle`, `walk` and `run` over the clips named so (any case) among `clips`, else the
/// first three clips (fewer repeat the last); parameter `speed` (float, default 0): idle → walk
/// above 0.6, walk → run above 2.6, run → walk below 2.2, walk → idle below 0.4, each over a
/// 0.3 s cross-fade. `clips` must not be empty.
pub fn locomotion(clips: &[String]) -> StateMachineDef {
    let pick = |wanted: &str, fallback: usize| {
        clips
            .iter()
            .find(|n| n.eq_ignore_ascii_case(wanted))
            .or_else(|| clips.get(fallback.min(clips.len().saturating_sub(1))))
            .cloned()
            .unwrap_or_default()
    };
    let (idle, walk, run) = (pick("idle", 0), pick("walk", 1), pick("run", 2));
    let speed = |op, v: f32| Condition::new("speed", op, Value::Float(v as f64));
    StateMachineDef::new("locomotion")
        .parameter(ParameterDef {
            name: "speed".into(),
            kind: ParameterKind::Float,
            default: Some(Value::Float(0.0)),
        })
        .clip_state("idle", &idle)
        .clip_state("walk", &walk)
        .clip_state("run", &run)
        .transition(
            TransitionDef::new("idle", "walk")
                .fade(0.3)
                .when(speed(Compare::Gt, 0.6)),
        )
        .transition(
            TransitionDef::new("walk", "run")
                .fade(0.3)
                .when(speed(Compare::Gt, 2.6)),
        )
        .transition(
            TransitionDef::new("run", "walk")
                .fade(0.3)
                .when(speed(Compare::Lt, 2.2)),
        )
        .transition(
            TransitionDef::new("walk", "idle")
                .fade(0.3)
                .when(speed(Compare::Lt, 0.4)),
        )
}
