//! Blend spaces

use glam::Vec2;
use hecs::World;
use sinew::runtime::{Animated, BlendSpace, BlendSpaceDef, RuntimeError, Transform};

use super::fixtures::{animator, assert_close, record, sample};

#[test]
fn blend_space_1d_weights_at_endpoints_and_midpoints() {
    let space = BlendSpace::one_d(&[(10, 0.0), (11, 1.5), (12, 4.0)]).unwrap();
    let check = |x: f32, expected: &[(u32, f32)]| {
        let w = space.weights(Vec2::new(x, 0.0));
        let sum: f32 = w.iter().map(|(_, w)| w).sum();
        assert_close(sum, 1.0, 1e-6, "weights sum");
        for &(clip, weight) in expected {
            assert_close(
                w.weight_of(clip),
                weight,
                1e-6,
                &format!("clip {clip} at x = {x}"),
            );
        }
    };
    check(-1.0, &[(10, 1.0)]);
    check(0.0, &[(10, 1.0)]);
    check(0.75, &[(10, 0.5), (11, 0.5)]);
    check(1.5, &[(11, 1.0)]);
    check(2.75, &[(11, 0.5), (12, 0.5)]);
    check(4.0, &[(12, 1.0)]);
    check(9.0, &[(12, 1.0)]);
    assert_eq!(space.weights(Vec2::new(0.75, 0.0)).len, 2);
}

#[test]
fn blend_space_2d_weights_sum_to_one_and_hit_the_samples() {
    let points = [
        (0, Vec2::new(0.0, 0.0)),
        (1, Vec2::new(0.0, 1.0)),
        (2, Vec2::new(0.0, 3.0)),
        (3, Vec2::new(-1.0, 0.0)),
        (4, Vec2::new(1.0, 0.0)),
        (5, Vec2::new(0.0, -1.0)),
        (6, Vec2::new(1.0, 1.0)),
    ];
    let space = BlendSpace::two_d(&points).unwrap();
    for &(clip, at) in &points {
        let w = space.weights(at);
        let sum: f32 = w.iter().map(|(_, w)| w).sum();
        assert_close(sum, 1.0, 1e-5, "sum at a sample");
        assert_close(w.weight_of(clip), 1.0, 1e-5, &format!("own weight at {at}"));
    }
    for p in [
        Vec2::new(0.3, 0.2),
        Vec2::new(-0.4, 1.1),
        Vec2::new(0.5, 2.0),
        Vec2::new(7.0, -3.0),
    ] {
        let w = space.weights(p);
        let sum: f32 = w.iter().map(|(_, w)| w).sum();
        assert_close(sum, 1.0, 1e-5, &format!("sum at {p}"));
        assert!(w.len <= 3 && w.iter().all(|(_, w)| w > 0.0));
        // Barycentric: the weighted sample positions give back the input (inside the hull).
        if p.x.abs() < 1.0 && p.y > -1.0 && p.y < 1.0 {
            let back = w
                .iter()
                .fold(Vec2::ZERO, |acc, (c, wt)| acc + points[c as usize].1 * wt);
            assert!(back.abs_diff_eq(p, 1e-5), "{back} vs {p}");
        }
    }
    assert!(matches!(
        BlendSpace::two_d(&[(0, Vec2::ZERO), (1, Vec2::X), (2, Vec2::X * 2.0)]),
        Err(RuntimeError::BadBlendSpace { .. })
    ));
}

#[test]
fn blend_space_clips_share_one_phase() {
    let mut a = animator();
    let space = a
        .add_blend_space(
            0,
            "gait",
            &BlendSpaceDef {
                x: "speed".to_string(),
                y: None,
                samples: vec![sample("walk", 1.0, 0.0), sample("run", 3.0, 0.0)],
            },
        )
        .unwrap();
    let mut world = World::new();
    let e = world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        a.blend_space_fade(0, space, Vec2::new(1.5, 0.0)).unwrap(),
    ));
    for _ in 0..50 {
        a.update(&mut world, 0.037).unwrap();
        let rec = record(&a, &world, e);
        assert_eq!(rec.layer_count, 2);
        let (walk, run) = (rec.layers[0], rec.layers[1]);
        assert_close(walk.time / 1.0, run.time / 0.6, 1e-5, "normalized phases");
    }
}
