//! Sync markers carried by a glTF animation's `extras`: glTF has no event or marker track, so
//! tools that export them write them as extras. sinew reads
//!
//! ```json
//! "extras": { "sync_markers": [ { "time": 0.1, "name": "left" }, { "time": 0.6, "name": "right" } ] }
//! ```
//!
//! (`"markers"` is read as well when `"sync_markers"` is absent), or the same as an object of
//! names to a time or a list of times (`{ "left": 0.1, "right": [0.6] }`). Other extras are
//! left alone; a marker that is malformed, unnamed or outside the clip is an error naming the
//! animation and the marker.

use serde_json::Value;
use serde_json::value::RawValue;

use super::raw::ClipMarker;
use crate::error::ImportErrorKind;

/// The markers in `extras` of animation `animation`, in file order (none without extras).
pub(crate) fn read_markers(
    extras: Option<&RawValue>,
    animation: usize,
) -> Result<Vec<ClipMarker>, ImportErrorKind> {
    let Some(extras) = extras else {
        return Ok(Vec::new());
    };
    let bad = |marker: usize, reason: &'static str| ImportErrorKind::SyncMarker {
        animation,
        marker,
        reason,
    };
    // Extras are free-form: ones that are not an object name no markers.
    let Ok(Value::Object(extras)) = serde_json::from_str::<Value>(extras.get()) else {
        return Ok(Vec::new());
    };
    let Some(list) = extras.get("sync_markers").or_else(|| extras.get("markers")) else {
        return Ok(Vec::new());
    };
    let mut markers = Vec::new();
    match list {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let time = item.get("time").and_then(Value::as_f64);
                let name = item.get("name").and_then(Value::as_str);
                let (Some(time), Some(name)) = (time, name) else {
                    return Err(bad(i, "is not {\"time\": seconds, \"name\": text}"));
                };
                markers.push(ClipMarker {
                    time: time as f32,
                    name: name.to_string(),
                });
            }
        }
        Value::Object(names) => {
            for (name, times) in names {
                let times = match times {
                    Value::Array(times) => times.iter().collect(),
                    time => vec![time],
                };
                for time in times {
                    let Some(time) = time.as_f64() else {
                        return Err(bad(markers.len(), "has a time that is not a number"));
                    };
                    markers.push(ClipMarker {
                        time: time as f32,
                        name: name.clone(),
                    });
                }
            }
        }
        _ => return Err(bad(0, "list is neither an array nor an object")),
    }
    Ok(markers)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(json: &str) -> Result<Vec<ClipMarker>, ImportErrorKind> {
        let raw = RawValue::from_string(json.to_string()).unwrap(); // ok: unit test
        read_markers(Some(&raw), 3)
    }

    #[test]
    fn both_shapes_are_read() {
        let list = read(
            r#"{"sync_markers": [{"time": 0.5, "name": "right"}, {"time": 0.1, "name": "left"}]}"#,
        );
        let list = list.unwrap(); // ok: unit test
        assert_eq!(list.len(), 2);
        assert_eq!((list[0].time, list[0].name.as_str()), (0.5, "right"));
        let names = read(r#"{"markers": {"left": 0.1, "right": [0.6, 0.9]}, "other": 1}"#);
        let names = names.unwrap(); // ok: unit test
        assert_eq!(names.len(), 3);
        assert!(read(r#"{"author": "x"}"#).unwrap().is_empty()); // ok: unit test
        assert!(read("[1, 2]").unwrap().is_empty()); // ok: unit test
    }

    #[test]
    fn malformed_markers_are_errors() {
        for json in [
            r#"{"sync_markers": [{"time": "soon", "name": "left"}]}"#,
            r#"{"sync_markers": [{"time": 0.1}]}"#,
            r#"{"sync_markers": {"left": "soon"}}"#,
            r#"{"sync_markers": 3}"#,
        ] {
            assert!(
                matches!(
                    read(json),
                    Err(ImportErrorKind::SyncMarker { animation: 3, .. })
                ),
                "{json}"
            );
        }
    }
}
