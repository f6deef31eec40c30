//! Every malformed input the glTF importer and the baker must turn into a typed error instead of
//! a panic or a wrong result. Each case starts from one small valid skinned and animated file,
//! built here in memory, changes one thing, and checks the error's kind, its file name and that
//! its text names the offending object. A byte-level fuzz pass checks that nothing panics.
//! Hand-built raw data given straight to the public constructors is tried in `constructors`.

mod common;

/// Asserts an error's kind matches a pattern and its text contains every needle.
macro_rules! assert_kind {
    ($err:expr, $pattern:pat $(if $guard:expr)?, $($needle:expr),+ $(,)?) => {{
        let err: &sinew::ImportError = &$err;
        assert!(
            matches!(&err.kind, $pattern $(if $guard)?),
            "{}: expected `{}`, got {:?}",
            err.file,
            stringify!($pattern $(if $guard)?),
            err.kind
        );
        let text = err.to_string();
        $(
            let needle: &str = &$needle;
            assert!(
                text.contains(needle),
                "{}: the error text {text:?} does not contain {needle:?}",
                err.file
            );
        )+
    }};
}

#[path = "malformed/accessors.rs"]
mod accessors;
#[path = "malformed/animation_pointer.rs"]
mod animation_pointer;
#[path = "malformed/animations.rs"]
mod animations;
#[path = "malformed/buffers.rs"]
mod buffers;
#[path = "malformed/clauses.rs"]
mod clauses;
#[path = "malformed/constructors.rs"]
mod constructors;
#[path = "malformed/container.rs"]
mod container;
#[path = "malformed/extensions.rs"]
mod extensions;
#[path = "malformed/fbx.rs"]
mod fbx;
#[path = "malformed/fixtures.rs"]
mod fixtures;
#[path = "malformed/fuzz_corpus.rs"]
mod fuzz_corpus;
#[path = "malformed/fuzzing.rs"]
mod fuzzing;
#[path = "malformed/ik.rs"]
mod ik;
#[path = "malformed/images.rs"]
mod images;
#[path = "malformed/indices.rs"]
mod indices;
#[path = "malformed/meshes.rs"]
mod meshes;
#[path = "malformed/morph_targets.rs"]
mod morph_targets;
#[path = "malformed/node_graph.rs"]
mod node_graph;
#[path = "malformed/nodes.rs"]
mod nodes;
#[path = "malformed/rigs.rs"]
mod rigs;
#[path = "malformed/settings.rs"]
mod settings;
#[path = "malformed/skinned_primitives.rs"]
mod skinned_primitives;
#[path = "malformed/skins.rs"]
mod skins;
#[path = "malformed/valid_file.rs"]
mod valid_file;
