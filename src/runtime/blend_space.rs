//! Blend spaces: clips placed at points of a 1D or 2D parameter space (speed; direction ×
//! speed), blended by where an input point falls among them.
//!
//! - **1D**: linear between the two samples around the input, clamped at the ends.
//! - **2D**: barycentric weights over a Delaunay triangulation of the samples (built once);
//!   outside the samples' hull, the input is projected onto the nearest hull edge.
//!
//! Barycentric weights were chosen over gradient-band or inverse-distance weights because they
//! give at most **three** non-zero weights for any input, so a 2D blend fits in the instance
//! record's [`crate::MAX_LAYERS`] layers; the other schemes give every sample some weight. They
//! are exact at the samples (weight 1 there) and continuous everywhere.
//!
//! The sampled clips share one normalized phase (see [`crate::runtime::CrossFade`]): each clip's
//! time is `phase × duration`, and the phase advances at `1 / Σ wᵢ·durationᵢ` per second, so
//! cycles of different lengths stay in step and feet do not slide.

use glam::{DMat2, DVec2, Vec2};

use super::RuntimeError;
use super::parameters::{ParameterDef, ParameterKind};
use crate::baked::Rig;

/// Most clips a blend space blends at once (a triangle's corners).
pub const MAX_BLEND_CLIPS: usize = 3;

/// A blend space as data: clip names at points, and the state machine parameters that feed the
/// input point (`x`, and `y` for a 2D space).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BlendSpaceDef {
    /// Parameter (a float) giving the input's x.
    pub x: String,
    /// Parameter giving the input's y; the space is 2D when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<String>,
    /// The clips and where they sit.
    pub samples: Vec<BlendSample>,
}

/// One clip of a [`BlendSpaceDef`] and its position.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BlendSample {
    /// Clip name.
    pub clip: String,
    /// Position on the x axis.
    pub x: f32,
    /// Position on the y axis (2D spaces only).
    #[serde(default)]
    pub y: f32,
}

/// Clips and their weights for one input point; weights are positive and sum to 1.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BlendWeights {
    /// Clip indices; the first `len` are used.
    pub clips: [u32; MAX_BLEND_CLIPS],
    /// Their weights.
    pub weights: [f32; MAX_BLEND_CLIPS],
    /// Number of used entries.
    pub len: usize,
}

impl BlendWeights {
    /// The used `(clip, weight)` pairs.
    pub fn iter(&self) -> impl Iterator<Item = (u32, f32)> + '_ {
        self.clips[..self.len]
            .iter()
            .copied()
            .zip(self.weights[..self.len].iter().copied())
    }

    /// Weight of `clip` (0 when it does not take part).
    pub fn weight_of(&self, clip: u32) -> f32 {
        self.iter()
            .filter(|&(c, _)| c == clip)
            .map(|(_, w)| w)
            .sum()
    }

    fn push(&mut self, clip: u32, weight: f32) {
        if weight > WEIGHT_EPSILON && self.len < MAX_BLEND_CLIPS {
            self.clips[self.len] = clip;
            self.weights[self.len] = weight;
            self.len += 1;
        }
    }

    fn normalize(mut self) -> Self {
        let sum: f32 = self.weights[..self.len].iter().sum();
        if sum > 0.0 {
            for w in &mut self.weights[..self.len] {
                *w /= sum;
            }
        }
        self
    }
}

/// Weights below this are dropped (and the rest renormalized).
const WEIGHT_EPSILON: f32 = 1e-6;

/// A compiled blend space over clip indices of one rig.
#[derive(Clone, Debug, PartialEq)]
pub struct BlendSpace {
    clips: Vec<u32>,
    points: Vec<Vec2>,
    shape: Shape,
    /// The state machine parameters feeding the input's x and y, when a state machine owns it.
    pub(crate) axes: Option<[Option<u16>; 2]>,
}

#[derive(Clone, Debug, PartialEq)]
enum Shape {
    /// Sample indices sorted by x.
    Line(Vec<usize>),
    /// Triangles, and the edges of the triangulation's boundary.
    Mesh {
        triangles: Vec<Triangle>,
        hull: Vec<[usize; 2]>,
    },
}

/// A triangle with its barycentric solve precomputed.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Triangle {
    corners: [usize; 3],
    origin: Vec2,
    /// Maps `p - origin` to the weights of corners 1 and 2.
    inverse: glam::Mat2,
}

impl BlendSpace {
    /// A 1D space: `(clip, x)` samples. Needs at least one sample and distinct positions.
    pub fn one_d(samples: &[(u32, f32)]) -> Result<Self, RuntimeError> {
        if samples.is_empty() {
            return Err(bad("a blend space needs at least one sample"));
        }
        let mut order: Vec<usize> = (0..samples.len()).collect();
        order.sort_by(|&a, &b| samples[a].1.total_cmp(&samples[b].1));
        for pair in order.windows(2) {
            if samples[pair[0]].1 == samples[pair[1]].1 {
                return Err(bad(&format!("two samples at x = {}", samples[pair[0]].1)));
            }
        }
        check_finite(samples.iter().map(|s| Vec2::new(s.1, 0.0)))?;
        Ok(Self {
            clips: samples.iter().map(|s| s.0).collect(),
            points: samples.iter().map(|s| Vec2::new(s.1, 0.0)).collect(),
            shape: Shape::Line(order),
            axes: None,
        })
    }

    /// A 2D space: `(clip, position)` samples, at least three, not all on one line, no two at
    /// the same position.
    pub fn two_d(samples: &[(u32, Vec2)]) -> Result<Self, RuntimeError> {
        if samples.len() < 3 {
            return Err(bad("a 2D blend space needs at least three samples"));
        }
        check_finite(samples.iter().map(|s| s.1))?;
        let points: Vec<Vec2> = samples.iter().map(|s| s.1).collect();
        for (i, a) in points.iter().enumerate() {
            if points[i + 1..].contains(a) {
                return Err(bad(&format!("two samples at {a}")));
            }
        }
        let corners = delaunay(&points);
        let triangles: Vec<Triangle> = corners
            .iter()
            .filter_map(|&c| Triangle::new(c, &points))
            .collect();
        if triangles.is_empty() {
            return Err(bad(
                "the samples all lie on one line (use a 1D blend space)",
            ));
        }
        let mut edges: Vec<[usize; 2]> = triangles
            .iter()
            .flat_map(|t| {
                let [a, b, c] = t.corners;
                [[a, b], [b, c], [c, a]].map(|[x, y]| [x.min(y), x.max(y)])
            })
            .collect();
        edges.sort_unstable();
        let hull = edges
            .iter()
            .enumerate()
            .filter(|&(i, e)| {
                (i == 0 || edges[i - 1] != *e) && edges.get(i + 1).is_none_or(|n| n != e)
            })
            .map(|(_, e)| *e)
            .collect();
        Ok(Self {
            clips: samples.iter().map(|s| s.0).collect(),
            points,
            shape: Shape::Mesh { triangles, hull },
            axes: None,
        })
    }

    /// Compiles `def` over the clips of `rig`. With `parameters` (a state machine's), its axis
    /// names are resolved to float or int parameters; without, they are not used.
    pub fn from_def(
        def: &BlendSpaceDef,
        rig: &Rig,
        parameters: Option<(&[ParameterDef], &str)>,
    ) -> Result<Self, RuntimeError> {
        let clip = |name: &str| {
            rig.clips
                .find_clip(name)
                .map(|c| c as u32)
                .ok_or_else(|| RuntimeError::UnknownClip {
                    rig: rig.name.clone(),
                    clip: name.to_string(),
                })
        };
        let mut space = match def.y {
            None => Self::one_d(
                &def.samples
                    .iter()
                    .map(|s| Ok((clip(&s.clip)?, s.x)))
                    .collect::<Result<Vec<_>, RuntimeError>>()?,
            )?,
            Some(_) => Self::two_d(
                &def.samples
                    .iter()
                    .map(|s| Ok((clip(&s.clip)?, Vec2::new(s.x, s.y))))
                    .collect::<Result<Vec<_>, RuntimeError>>()?,
            )?,
        };
        if let Some((defs, machine)) = parameters {
            let axis = |name: &str| {
                let index = defs.iter().position(|d| d.name == name).ok_or_else(|| {
                    RuntimeError::UnknownParameter {
                        machine: machine.to_string(),
                        parameter: name.to_string(),
                    }
                })?;
                match defs[index].kind {
                    ParameterKind::Float | ParameterKind::Int => Ok(index as u16),
                    kind => Err(RuntimeError::ParameterType {
                        parameter: name.to_string(),
                        expected: "float",
                        found: kind.name().to_string(),
                    }),
                }
            };
            space.axes = Some([Some(axis(&def.x)?), def.y.as_deref().map(axis).transpose()?]);
        }
        Ok(space)
    }

    /// Whether the space is 2D.
    pub fn is_2d(&self) -> bool {
        matches!(self.shape, Shape::Mesh { .. })
    }

    /// Every clip of the space, in sample order.
    pub fn clips(&self) -> &[u32] {
        &self.clips
    }

    /// The clips and weights at `input` (`input.y` is ignored by a 1D space). A NaN input gives
    /// the first sample.
    pub fn weights(&self, input: Vec2) -> BlendWeights {
        let mut out = BlendWeights::default();
        match &self.shape {
            Shape::Line(order) => {
                let x = input.x;
                let first = order[0];
                let last = order[order.len() - 1];
                if x.is_nan() || x <= self.points[first].x {
                    out.push(self.clips[first], 1.0);
                } else if x >= self.points[last].x {
                    out.push(self.clips[last], 1.0);
                } else {
                    for pair in order.windows(2) {
                        let (a, b) = (self.points[pair[0]].x, self.points[pair[1]].x);
                        if x <= b {
                            let t = (x - a) / (b - a);
                            out.push(self.clips[pair[0]], 1.0 - t);
                            out.push(self.clips[pair[1]], t);
                            break;
                        }
                    }
                }
            }
            Shape::Mesh { triangles, hull } => {
                let p = if input.is_finite() {
                    input
                } else {
                    self.points[0]
                };
                if let Some((t, w)) = triangles.iter().find_map(|t| t.weights(p).map(|w| (t, w))) {
                    for (&corner, &weight) in t.corners.iter().zip(&w) {
                        out.push(self.clips[corner], weight);
                    }
                } else {
                    // Outside: the closest point on the boundary.
                    let mut best = (f32::INFINITY, 0, 0, 0.0);
                    for &[a, b] in hull {
                        let (pa, pb) = (self.points[a], self.points[b]);
                        let d = pb - pa;
                        let t = ((p - pa).dot(d) / d.length_squared()).clamp(0.0, 1.0);
                        let dist = (pa + d * t).distance_squared(p);
                        if dist < best.0 {
                            best = (dist, a, b, t);
                        }
                    }
                    let (_, a, b, t) = best;
                    out.push(self.clips[a], 1.0 - t);
                    out.push(self.clips[b], t);
                }
            }
        }
        out.normalize()
    }
}

impl BlendSpace {
    /// Which piece of the space's piecewise-linear weights `input` falls in: inputs of one
    /// region get weights linear in the input (a 1D segment or end, a triangle, or a hull edge
    /// or corner that outside inputs project onto), so a ramp's weights are linear in time
    /// while its input stays in one region ([`crate::runtime::InputRamp`]).
    pub fn region(&self, input: Vec2) -> u32 {
        match &self.shape {
            Shape::Line(order) => {
                let x = input.x;
                order.iter().take_while(|&&i| self.points[i].x < x).count() as u32
            }
            Shape::Mesh { triangles, hull } => {
                if let Some(t) = triangles.iter().position(|t| t.weights(input).is_some()) {
                    return t as u32;
                }
                let mut best = (f32::INFINITY, 0, 0);
                for (e, &[a, b]) in hull.iter().enumerate() {
                    let (pa, pb) = (self.points[a], self.points[b]);
                    let d = pb - pa;
                    let t = ((input - pa).dot(d) / d.length_squared()).clamp(0.0, 1.0);
                    let dist = (pa + d * t).distance_squared(input);
                    if dist < best.0 {
                        let piece = if t <= 0.0 {
                            0
                        } else if t >= 1.0 {
                            2
                        } else {
                            1
                        };
                        best = (dist, e, piece);
                    }
                }
                (triangles.len() + 3 * best.1 + best.2) as u32
            }
        }
    }
}

impl Triangle {
    /// The triangle, or `None` when degenerate.
    fn new(corners: [usize; 3], points: &[Vec2]) -> Option<Self> {
        let [a, b, c] = corners.map(|i| points[i]);
        let m = glam::Mat2::from_cols(b - a, c - a);
        let det = m.determinant();
        let scale = (b - a).length() * (c - a).length();
        if det.abs() <= 1e-6 * scale {
            return None;
        }
        Some(Self {
            corners,
            origin: a,
            inverse: m.inverse(),
        })
    }

    /// Barycentric weights of `p`, if it lies inside (with a little tolerance at the edges).
    fn weights(&self, p: Vec2) -> Option<[f32; 3]> {
        let uv = self.inverse * (p - self.origin);
        let w = [1.0 - uv.x - uv.y, uv.x, uv.y];
        const EDGE: f32 = -1e-5;
        w.iter().all(|&x| x >= EDGE).then(|| w.map(|x| x.max(0.0)))
    }
}

/// Delaunay triangulation (Bowyer-Watson) of `points`, corners as point indices. Degenerate
/// inputs may produce slivers; the caller drops those.
fn delaunay(points: &[Vec2]) -> Vec<[usize; 3]> {
    // Work in f64, in a unit box, with a super-triangle far outside it.
    let lo = points
        .iter()
        .fold(Vec2::INFINITY, |m, p| m.min(*p))
        .as_dvec2();
    let hi = points
        .iter()
        .fold(Vec2::NEG_INFINITY, |m, p| m.max(*p))
        .as_dvec2();
    let extent = (hi - lo).max_element().max(f64::MIN_POSITIVE);
    let mut verts: Vec<DVec2> = points
        .iter()
        .map(|p| (p.as_dvec2() - lo) / extent)
        .collect();
    let n = verts.len();
    verts.extend([
        DVec2::new(-1e4, -1e4),
        DVec2::new(1e4, -1e4),
        DVec2::new(0.0, 1e4),
    ]);
    let mut tris: Vec<[usize; 3]> = vec![[n, n + 1, n + 2]];
    for i in 0..n {
        let p = verts[i];
        let (bad, good): (Vec<[usize; 3]>, Vec<[usize; 3]>) = tris
            .into_iter()
            .partition(|t| in_circumcircle(t.map(|k| verts[k]), p));
        tris = good;
        let edges: Vec<[usize; 2]> = bad
            .iter()
            .flat_map(|t| [[t[0], t[1]], [t[1], t[2]], [t[2], t[0]]])
            .collect();
        for e in &edges {
            let shared = edges
                .iter()
                .filter(|o| (o[0] == e[0] && o[1] == e[1]) || (o[0] == e[1] && o[1] == e[0]))
                .count();
            if shared == 1 {
                tris.push([e[0], e[1], i]);
            }
        }
    }
    tris.retain(|t| t.iter().all(|&k| k < n));
    tris
}

/// Whether `p` lies strictly inside the circle through the triangle's corners.
fn in_circumcircle([a, b, c]: [DVec2; 3], p: DVec2) -> bool {
    let m = DMat2::from_cols(b - a, c - a);
    let det = m.determinant();
    if det.abs() < 1e-18 {
        return true; // A degenerate triangle is always replaced.
    }
    let rhs = DVec2::new((b - a).length_squared(), (c - a).length_squared()) * 0.5;
    let centre = a + m.transpose().inverse() * rhs;
    p.distance_squared(centre) < a.distance_squared(centre) * (1.0 - 1e-12)
}

fn check_finite(mut points: impl Iterator<Item = Vec2>) -> Result<(), RuntimeError> {
    match points.find(|p| !p.is_finite()) {
        Some(p) => Err(bad(&format!("sample position {p} is not finite"))),
        None => Ok(()),
    }
}

fn bad(reason: &str) -> RuntimeError {
    RuntimeError::BadBlendSpace {
        reason: reason.to_string(),
    }
}
