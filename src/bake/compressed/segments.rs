//! Uniform segments from key times: a clip whose key times change spacing (Fox's "Run": 24 Hz
//! keys, a 0.2 s gap, then 24 Hz keys again shifted by 1/120 s) is framed on consecutive
//! uniform runs of its own keys instead of one grid fine enough for all of them.

use crate::baked::compressed::MAX_SEGMENTS;
use crate::baked::{Channel, ClipLibrary, ClipSegment};

/// Two key intervals are equal when they differ by at most this share of the first (plus the
/// rounding of f32 times).
const SPACING_TOLERANCE: f64 = 1e-4;

/// The segments of clip `clip` of `lib` from its key times (every track of more than one key,
/// merged): maximal runs of equal spacing, one interval before the first key and after the
/// last when they are inside `0..=duration`. `None` when one grid serves as well (a single
/// run) or more than [`MAX_SEGMENTS`] runs are needed.
pub(super) fn key_segments(lib: &ClipLibrary, clip: usize) -> Option<Vec<ClipSegment>> {
    let duration = f64::from(lib.clips()[clip].duration);
    let mut times: Vec<f64> = Vec::new();
    let mut add = |offset: u32, count: u32| {
        if count >= 2 {
            let t0 = offset as usize;
            let keys = lib.times().get(t0..t0 + count as usize).unwrap_or(&[]);
            times.extend(keys.iter().map(|&t| f64::from(t)));
        }
    };
    for joint in 0..lib.joint_count() {
        for channel in Channel::ALL {
            let d = lib.track(clip, joint, channel);
            add(d.time_offset, d.key_count);
        }
    }
    for chunk in 0..lib.weight_chunk_count() {
        if let Some(d) = lib.weight_track(clip, chunk) {
            add(d.time_offset, d.key_count);
        }
    }
    times.retain(|t| t.is_finite() && (0.0..=duration).contains(t));
    if times.is_empty() {
        return None;
    }
    times.push(0.0);
    times.push(duration);
    times.sort_unstable_by(f64::total_cmp);
    // Keys closer than the rounding of f32 times are one key.
    times.dedup_by(|b, a| *b - *a <= f64::from(f32::EPSILON) * 4.0 * a.abs().max(1.0));
    runs(&times)
}

/// Maximal runs of equal spacing over sorted distinct `times`, taken greedily from the first;
/// `None` for a single run or more than [`MAX_SEGMENTS`].
fn runs(times: &[f64]) -> Option<Vec<ClipSegment>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < times.len() {
        let step = times[i + 1] - times[i];
        let mut j = i + 1;
        while j + 1 < times.len() {
            let tolerance = SPACING_TOLERANCE * step + f64::from(f32::EPSILON) * 4.0 * times[j + 1];
            if (times[j + 1] - times[j] - step).abs() > tolerance {
                break;
            }
            j += 1;
        }
        if out.len() == MAX_SEGMENTS {
            return None;
        }
        let intervals = (j - i) as u32;
        out.push(ClipSegment {
            start: times[i] as f32,
            rate: (f64::from(intervals) / (times[j] - times[i])) as f32,
            first_frame: (i as u32),
            intervals,
        });
        i = j;
    }
    (out.len() >= 2).then_some(out)
}

/// `segments` refined where `missed` (one flag per interval of the clip's frames) is true: each
/// segment split into the runs of its intervals that share a flag, the step of the missed runs
/// halved (twice the rate and the frames), then neighbours of one rate merged. `None` when that
/// needs more than [`MAX_SEGMENTS`].
pub(super) fn refine(segments: &[ClipSegment], missed: &[bool]) -> Option<Vec<ClipSegment>> {
    let mut out: Vec<ClipSegment> = Vec::new();
    let mut first = 0;
    let flag = |f: u32| missed.get(f as usize).copied().unwrap_or(true);
    for s in segments {
        let mut i = 0;
        while i < s.intervals {
            let m = flag(s.first_frame + i);
            let mut j = i + 1;
            while j < s.intervals && flag(s.first_frame + j) == m {
                j += 1;
            }
            let factor = if m { 2 } else { 1 };
            let start = (f64::from(s.start) + f64::from(i) / f64::from(s.rate)) as f32;
            let run = ClipSegment {
                start,
                rate: s.rate * factor as f32,
                first_frame: first,
                intervals: (j - i) * factor,
            };
            first += run.intervals;
            match out.last_mut() {
                Some(last) if last.rate == run.rate => last.intervals += run.intervals,
                _ => out.push(run),
            }
            i = j;
        }
    }
    (out.len() <= MAX_SEGMENTS).then_some(out)
}

/// Frames of `segments`: one more than their intervals.
pub(super) fn frame_total(segments: &[ClipSegment]) -> usize {
    segments.iter().map(|s| s.intervals as usize).sum::<usize>() + 1
}

/// The finest rate of `segments`.
pub(super) fn finest_rate(segments: &[ClipSegment]) -> f32 {
    segments.iter().map(|s| s.rate).fold(0.0, f32::max)
}

/// The clip time of every frame of `segments`, inside `0..=duration`: a segment's last frame
/// is the next one's start.
pub(super) fn frame_times(segments: &[ClipSegment], duration: f32) -> Vec<f32> {
    let mut times = Vec::with_capacity(frame_total(segments));
    for s in segments {
        for i in 0..s.intervals {
            let t = f64::from(s.start) + f64::from(i) / f64::from(s.rate);
            times.push((t as f32).min(duration));
        }
    }
    let end = segments.last().map_or(0.0, |s| s.end() as f32);
    times.push(end.min(duration));
    times
}

#[cfg(test)]
mod tests {
    use super::{ClipSegment, MAX_SEGMENTS, refine, runs};

    #[test]
    fn runs_split_where_the_spacing_changes() {
        // 24 Hz to 16/24, a 0.2 s gap, then 24 Hz again.
        let mut times: Vec<f64> = (0..=16).map(|i| f64::from(i) / 24.0).collect();
        let after = 16.0 / 24.0 + 0.2;
        times.extend((0..=8).map(|i| after + f64::from(i) / 24.0));
        let s = runs(&times).unwrap(); // ok: unit test
        assert_eq!(s.len(), 3, "{s:?}");
        assert_eq!((s[0].first_frame, s[0].intervals), (0, 16));
        assert_eq!((s[1].first_frame, s[1].intervals), (16, 1));
        assert_eq!((s[2].first_frame, s[2].intervals), (17, 8));
        assert!((s[0].rate - 24.0).abs() < 1e-3 && (s[2].rate - 24.0).abs() < 1e-3);
        assert!((s[1].rate - 5.0).abs() < 1e-3);
        assert!((f64::from(s[2].start) - after).abs() < 1e-6);
        let every = vec![true; 25];
        let fine = refine(&s, &every).unwrap(); // ok: unit test
        assert_eq!(
            fine[2],
            ClipSegment {
                start: s[2].start,
                rate: s[2].rate * 2.0,
                first_frame: 34,
                intervals: 16,
            }
        );
        // Only the gap: the frames after it move by one.
        let mut gap = vec![false; 25];
        gap[16] = true;
        let fine = refine(&s, &gap).unwrap(); // ok: unit test
        assert_eq!((fine[0].first_frame, fine[0].intervals), (0, 16));
        assert_eq!((fine[1].first_frame, fine[1].intervals), (16, 2));
        assert_eq!((fine[2].first_frame, fine[2].intervals), (18, 8));
        assert_eq!((fine[1].rate, fine[2].rate), (s[1].rate * 2.0, s[2].rate));
        // Intervals 4 and 5 of the first segment: split in three, the middle at 48 Hz from
        // frame 4's time.
        let mut two = vec![false; 25];
        two[4] = true;
        two[5] = true;
        let fine = refine(&s, &two).unwrap(); // ok: unit test
        assert_eq!(fine.len(), 5, "{fine:?}");
        assert_eq!((fine[1].first_frame, fine[1].intervals), (4, 4));
        assert_eq!(fine[1].rate, s[0].rate * 2.0);
        assert!((fine[1].start - 4.0 / 24.0).abs() < 1e-7);
        assert_eq!((fine[2].first_frame, fine[2].intervals), (8, 10));
        assert_eq!(fine[2].rate, s[0].rate);
        // Every other interval: more runs than the cap.
        let alternate: Vec<bool> = (0..25).map(|f| f % 2 == 0).collect();
        assert!(refine(&s, &alternate).is_none());
    }

    #[test]
    fn one_run_or_too_many_give_no_segments() {
        let even: Vec<f64> = (0..=30).map(|i| f64::from(i) / 30.0).collect();
        assert!(runs(&even).is_none());
        // Spacing alternating 1 and 2: one run per interval.
        let mut t = 0.0;
        let uneven: Vec<f64> = (0..=MAX_SEGMENTS + 1)
            .map(|i| {
                t += if i % 2 == 0 { 1.0 } else { 2.0 };
                t
            })
            .collect();
        assert!(runs(&uneven).is_none());
    }
}
