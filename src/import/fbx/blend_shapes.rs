//! FBX blend shapes → morph targets and weight tracks. Every keyframe shape of every channel of
//! a mesh's blend deformers is one morph target of the mesh (deformer, channel, then keyframe
//! order). A channel's percent `p` (`DeformPercent`) drives the weights of its shapes as ufbx
//! evaluates it: piecewise linear between the keyframes' target weights (in-between shapes),
//! the first shape scaled by `p` over its target weight below it, and the last two extrapolated
//! above the last. A clip's weight track keys every baked key of the channels' percent curves,
//! plus a key wherever a percent crosses zero or a target weight, so that linear interpolation
//! of the target weights between keys is exact.

use glam::{Mat3, Mat4, Vec3, Vec4};

use super::animations::{Blend, Span, single_precision, value_at};
use super::curves::{self, BakedKey, FBX_VIRTUAL_VERTEX, Metric};
use crate::error::ImportErrorKind;
use crate::import::raw::{Channel, Interpolation, RawMorphNode, RawMorphTarget, RawWeightTrack};

/// The blend channels of `mesh`, in deformer then channel order.
fn channels(mesh: &ufbx::Mesh) -> impl Iterator<Item = &ufbx::BlendChannel> {
    mesh.blend_deformers
        .iter()
        .flat_map(|deformer| deformer.channels.iter().map(|c| c.as_ref()))
}

/// The number of morph targets of `mesh`: one per keyframe shape of every channel.
fn target_count(mesh: &ufbx::Mesh) -> usize {
    channels(mesh).map(|c| c.keyframes.len()).sum()
}

/// The morph targets of `mesh` for the vertices a mesh reader made of it: `sources[v]` is the
/// FBX vertex (control point) of vertex `v`, and `placed` the matrix that placed the positions
/// (the offsets take its linear part, normal offsets its inverse transpose).
pub(super) fn targets(
    mesh: &ufbx::Mesh,
    sources: &[u32],
    placed: Mat4,
    fail: &dyn Fn(String) -> ImportErrorKind,
) -> Result<Vec<RawMorphTarget>, ImportErrorKind> {
    let linear = Mat3::from_mat4(placed);
    let normal_matrix = linear.inverse().transpose();
    let mut out = Vec::with_capacity(target_count(mesh));
    for channel in channels(mesh) {
        for key in channel.keyframes.iter() {
            let shape: &ufbx::BlendShape = &key.shape;
            let name = format!(
                "blend shape {:?} of channel {:?}",
                shape.element.name.as_ref() as &str,
                channel.element.name.as_ref() as &str
            );
            let positions = dense(mesh, &shape.offset_vertices, &shape.position_offsets);
            let normals = if shape.normal_offsets.is_empty() {
                Some(vec![Vec3::ZERO; mesh.num_vertices])
            } else {
                dense(mesh, &shape.offset_vertices, &shape.normal_offsets)
            };
            let (Some(positions), Some(normals)) = (positions, normals) else {
                return Err(fail(format!(
                    "{name}: offsets out of range or not one per offset vertex"
                )));
            };
            if positions.iter().chain(&normals).any(|v| !v.is_finite()) {
                return Err(fail(format!("{name}: an offset is not finite")));
            }
            let mut target = RawMorphTarget {
                positions: Vec::with_capacity(sources.len()),
                normals: Vec::with_capacity(sources.len()),
            };
            for &source in sources {
                let source = source as usize;
                let (Some(p), Some(n)) = (positions.get(source), normals.get(source)) else {
                    return Err(fail(format!("vertex {source} out of range in {name}")));
                };
                target.positions.push((linear * *p).to_array());
                target.normals.push((normal_matrix * *n).to_array());
            }
            out.push(target);
        }
    }
    Ok(out)
}

/// Sparse offsets (`values[i]` for vertex `vertices[i]`) as one offset per vertex of `mesh`,
/// or `None` when the lists disagree or name a vertex the mesh lacks.
fn dense(mesh: &ufbx::Mesh, vertices: &[u32], values: &[ufbx::Vec3]) -> Option<Vec<Vec3>> {
    if vertices.len() != values.len() {
        return None;
    }
    let mut out = vec![Vec3::ZERO; mesh.num_vertices];
    for (&v, value) in vertices.iter().zip(values) {
        *out.get_mut(v as usize)? = super::vec3(*value);
    }
    Some(out)
}

/// The nodes whose mesh has triangles and blend shapes, with the mesh.
fn morph_meshes(scene: &ufbx::Scene) -> impl Iterator<Item = (usize, &ufbx::Mesh)> {
    scene.nodes.iter().filter_map(|node| {
        let mesh = node.mesh.as_ref()?;
        (mesh.num_triangles > 0 && target_count(mesh) > 0)
            .then_some((node.element.typed_id as usize, mesh.as_ref()))
    })
}

/// Every node whose mesh has blend shapes, with the target weights its channels' own percents
/// give.
pub(super) fn morph_nodes(scene: &ufbx::Scene) -> Result<Vec<RawMorphNode>, ImportErrorKind> {
    morph_meshes(scene)
        .map(|(node, mesh)| {
            let mut weights = Vec::with_capacity(target_count(mesh));
            for channel in channels(mesh) {
                if !channel.weight.is_finite() {
                    return Err(ImportErrorKind::NonFinite {
                        object: format!(
                            "blend channel {:?} percent",
                            channel.element.name.as_ref() as &str
                        ),
                    });
                }
                weights.extend(shape_weights(channel, channel.weight));
            }
            Ok(RawMorphNode {
                node,
                mesh: mesh.element.typed_id as usize,
                weights,
            })
        })
        .collect()
}

/// The target weights of `channel`'s keyframe shapes at channel weight `weight` (percent over
/// 100), as ufbx evaluates them: between the two keyframe target weights (zero counting as a
/// shapeless keyframe) that bracket `weight` on its side of zero, extrapolating past the last.
pub(super) fn shape_weights(channel: &ufbx::BlendChannel, weight: f64) -> Vec<f32> {
    let targets: Vec<f64> = channel.keyframes.iter().map(|k| k.target_weight).collect();
    effective_weights(&targets, weight)
        .into_iter()
        .map(|w| w as f32)
        .collect()
}

/// [`shape_weights`] on keyframe target weights `targets`.
fn effective_weights(targets: &[f64], weight: f64) -> Vec<f64> {
    let mut out = vec![0.0; targets.len()];
    if targets.is_empty() {
        return out;
    }
    let last_negative = targets.iter().rposition(|&t| t < 0.0);
    // `None`: the shapeless keyframe at zero.
    let (mut prev, mut next): (Option<usize>, Option<usize>) = (None, None);
    let target = |k: Option<usize>| k.map_or(0.0, |k| targets[k]);
    // The first keyframe at or above zero.
    let first = last_negative.map_or(0, |n| n + 1);
    let keyed = targets.iter().copied().enumerate();
    if weight > 0.0 {
        // Up from zero to the first keyframe above the weight (or the last).
        prev = last_negative;
        for (i, t) in keyed.skip(first) {
            prev = next;
            next = Some(i);
            if t > weight {
                break;
            }
        }
    } else {
        // Down from zero to the first keyframe below the weight (or the lowest).
        if first < targets.len() {
            prev = Some(first);
        }
        for (i, t) in keyed.take(first).rev() {
            prev = next;
            next = Some(i);
            if t < weight {
                break;
            }
        }
    }
    let delta = target(next) - target(prev);
    if delta != 0.0 {
        let t = (weight - target(prev)) / delta;
        if let Some(p) = prev {
            out[p] = 1.0 - t;
        }
        if let Some(n) = next {
            out[n] = t;
        }
    }
    out
}

/// The `DeformPercent` keys ufbx baked for `channel` in `anim`, as weights (percent over 100),
/// fitted to the curve as node channels are (`curves.rs`: no shape vertex strays more than
/// [`FBX_CURVE_ERROR`](super::FBX_CURVE_ERROR) between keys), or `None` when the stack does not
/// animate it.
fn percent_keys(
    anim: &ufbx::Anim,
    baked: &ufbx::BakedAnim,
    channel: &ufbx::BlendChannel,
) -> Option<Vec<(f64, Vec4)>> {
    let element = baked
        .elements
        .iter()
        .find(|e| e.element_id == channel.element.element_id)?;
    let prop = element
        .props
        .iter()
        .find(|p| p.name.as_ref() as &str == "DeformPercent")?;
    // A weight's error moves a vertex by up to the largest offset: fitted in those metres.
    let extent = channel
        .keyframes
        .iter()
        .flat_map(|k| k.shape.position_offsets.iter())
        .map(|o| super::vec3(*o).length())
        .fold(0.0_f32, f32::max)
        .max(f32::MIN_POSITIVE);
    let metres = |percent: f64| Vec4::X * (percent * 0.01) as f32 * extent;
    let percent = |time| {
        let p = ufbx::evaluate_prop(anim, &channel.element, "DeformPercent", time);
        metres(p.value_vec4.x)
    };
    let keys: Vec<BakedKey> = prop
        .keys
        .iter()
        .map(|k| BakedKey::new(k.time, metres(k.value.x), k.flags))
        .collect();
    let metric = Metric {
        channel: Channel::Translation,
        distance: FBX_VIRTUAL_VERTEX,
    };
    let fitted = curves::fit(&keys, metric, percent);
    // Weight tracks are linear: steps keep ufbx's short ramps.
    let fitted = match fitted.interpolation {
        Interpolation::Step => keys.iter().map(|k| (k.time, percent(k.time))).collect(),
        _ => fitted.keys,
    };
    let weights: Vec<(f64, Vec4)> = fitted
        .into_iter()
        .map(|(t, v)| (t, Vec4::splat(v.x / extent)))
        .collect();
    let still = prop.constant_value && weights.iter().all(|k| f64::from(k.1.x) == channel.weight);
    (!weights.is_empty() && !still).then_some(weights)
}

/// The weight tracks of one baked stack spanning `span`: one per node whose mesh has a blend
/// channel the stack animates, keyed where any of its channels' percents is keyed or crosses
/// zero or a keyframe target weight. Channels the stack leaves alone keep their percent.
pub(super) fn weight_tracks(
    scene: &ufbx::Scene,
    anim: &ufbx::Anim,
    baked: &ufbx::BakedAnim,
    span: Span,
) -> Vec<RawWeightTrack> {
    let mut out = Vec::new();
    for (node, mesh) in morph_meshes(scene) {
        let curves: Vec<Option<Vec<(f64, Vec4)>>> = channels(mesh)
            .map(|c| percent_keys(anim, baked, c).map(|keys| span.cut(&keys, Blend::Lerp)))
            .collect();
        if curves.iter().all(Option::is_none) {
            continue;
        }
        let mut times: Vec<f64> = Vec::new();
        for (channel, curve) in channels(mesh).zip(&curves) {
            let Some(curve) = curve else { continue };
            times.extend(curve.iter().map(|k| k.0));
            let mut breaks: Vec<f64> = channel.keyframes.iter().map(|k| k.target_weight).collect();
            breaks.push(0.0);
            for pair in curve.windows(2) {
                let ((ta, a), (tb, b)) = (pair[0], pair[1]);
                let (a, b) = (f64::from(a.x), f64::from(b.x));
                for &w in &breaks {
                    if (w > a.min(b)) && (w < a.max(b)) {
                        times.push(ta + (w - a) / (b - a) * (tb - ta));
                    }
                }
            }
        }
        times.sort_by(f64::total_cmp);
        times.dedup();
        let keys = times.into_iter().map(|time| {
            let mut weights = Vec::with_capacity(target_count(mesh));
            for (channel, curve) in channels(mesh).zip(&curves) {
                let percent = curve.as_ref().map_or(channel.weight, |c| {
                    f64::from(value_at(c, time, Blend::Lerp).x)
                });
                weights.extend(shape_weights(channel, percent));
            }
            (time, weights)
        });
        let (times, values) = single_precision(keys);
        out.push(RawWeightTrack {
            target: node,
            interpolation: Interpolation::Linear,
            times,
            target_count: target_count(mesh),
            values: values.concat(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::effective_weights;

    #[test]
    fn in_between_weights_are_piecewise_linear() {
        let keys = [0.5, 1.0];
        let close = |w: f64, want: [f64; 2]| {
            let got = effective_weights(&keys, w);
            assert!(
                got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-12),
                "{w}: {got:?}, want {want:?}"
            );
        };
        close(0.0, [0.0, 0.0]);
        close(0.25, [0.5, 0.0]);
        close(0.5, [1.0, 0.0]);
        close(0.75, [0.5, 0.5]);
        close(1.0, [0.0, 1.0]);
        close(1.5, [-1.0, 2.0]);
        close(-0.25, [-0.5, 0.0]);
        assert_eq!(effective_weights(&[1.0], 0.3), [0.3]);
        // A negative keyframe drives weights below zero.
        let signed = effective_weights(&[-1.0, 1.0], -0.5);
        assert_eq!(signed, [0.5, 0.0]);
    }
}
