//! Joint names split into a side and a base name, so that `mixamorig:LeftArm`, `upper_arm.L`,
//! `upperarm_l`, `J_Bip_L_UpperArm` and `b_LeftUpperArm_09` can be compared.

/// Which side of the body a joint name says it is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// No side token (`Hips`, `Spine2`).
    Centre,
    /// `Left…`, `….L`, `…_l`, `L_…`.
    Left,
    /// `Right…`, `….R`, `…_r`, `R_…`.
    Right,
}

/// A joint name read for matching: its side and its remaining lowercase tokens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JointName {
    /// The side token's side.
    pub side: Side,
    /// The tokens without side, numbers and rig prefixes, joined (`upperarm`).
    pub base: String,
    /// The tokens without the side but with numbers and prefixes (`bupperarm09`): what a
    /// mirror partner's name shares.
    pub full: String,
}

/// Tokens that name a rig's convention, not a body part.
const PREFIXES: [&str; 10] = [
    "b",
    "j",
    "c",
    "bip",
    "joint",
    "jnt",
    "bone",
    "def",
    "skeleton",
    "mixamorig",
];

/// Splits `name` at separators, lower-to-upper case changes and letter-digit changes, after
/// dropping a namespace (`mixamorig:`), and reads its side.
pub fn read(name: &str) -> JointName {
    let name = name.rsplit(':').next().unwrap_or(name); // ok: rsplit yields at least one part
    let mut tokens: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut previous: Option<char> = None;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            push(&mut tokens, &mut current);
            previous = None;
            continue;
        }
        if let Some(p) = previous {
            let case_step = p.is_ascii_lowercase() && c.is_ascii_uppercase();
            let digit_step = p.is_ascii_digit() != c.is_ascii_digit();
            if case_step || digit_step {
                push(&mut tokens, &mut current);
            }
        }
        current.push(c.to_ascii_lowercase());
        previous = Some(c);
    }
    push(&mut tokens, &mut current);
    let mut side = Side::Centre;
    let mut base = String::new();
    let mut full = String::new();
    for t in &tokens {
        match t.as_str() {
            "left" | "l" if side == Side::Centre => side = Side::Left,
            "right" | "r" if side == Side::Centre => side = Side::Right,
            _ => {
                full.push_str(t);
                let number = t.chars().all(|c| c.is_ascii_digit());
                if !number && !PREFIXES.contains(&t.as_str()) {
                    base.push_str(t);
                }
            }
        }
    }
    JointName { side, base, full }
}

fn push(tokens: &mut Vec<String>, current: &mut String) {
    if !current.is_empty() {
        tokens.push(std::mem::take(current));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conventions_read_alike() {
        for name in [
            "mixamorig:LeftArm",
            "upper_arm.L",
            "upperarm_l",
            "J_Bip_L_UpperArm",
            "b_LeftUpperArm_09",
            "LeftUpperArm",
        ] {
            let read = read(name);
            assert_eq!(read.side, Side::Left, "{name}");
            assert!(
                read.base == "upperarm" || read.base == "arm",
                "{name}: {read:?}"
            );
        }
        assert_eq!(read("RightForeArm").base, "forearm");
        assert_eq!(read("RightForeArm").side, Side::Right);
        assert_eq!(read("Spine2").base, "spine");
        assert_eq!(read("Spine2").side, Side::Centre);
        assert_eq!(read("LeftHandThumb1").full, "handthumb1");
    }
}
