//! One module per subcommand, plus the small argument reader they share.

pub mod bake;
pub mod crowd;
pub mod inspect;
pub mod pose;
pub mod render;

/// Writes `text` and a newline to stdout; a closed pipe (`sinew pose ... | head`) is not an error.
pub fn print(text: &str) -> Result<(), String> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write output: {e}"))
        }
        _ => Ok(()),
    }
}

/// Flags and positional arguments of one subcommand.
pub struct Args {
    positional: Vec<String>,
    flags: Vec<(String, Option<String>)>,
}

impl Args {
    /// Splits `args`; flags named in `with_value` take the next argument as their value.
    pub fn parse(args: &[String], with_value: &[&str], switches: &[&str]) -> Result<Self, String> {
        let mut positional = Vec::new();
        let mut flags = Vec::new();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if with_value.contains(&a.as_str()) {
                let v = it.next().ok_or_else(|| format!("{a} needs a value"))?;
                flags.push((a.clone(), Some(v.clone())));
            } else if switches.contains(&a.as_str()) {
                flags.push((a.clone(), None));
            } else if a.starts_with('-') {
                return Err(format!("unknown option {a}"));
            } else {
                positional.push(a.clone());
            }
        }
        Ok(Self { positional, flags })
    }

    /// The single positional argument (the input file).
    pub fn file(&self) -> Result<&str, String> {
        match self.positional.as_slice() {
            [f] => Ok(f),
            [] => Err("missing FILE".into()),
            _ => Err(format!("unexpected arguments {:?}", &self.positional[1..])),
        }
    }

    /// The value of `flag`, if given.
    pub fn value(&self, flag: &str) -> Option<&str> {
        self.flags
            .iter()
            .rev()
            .find(|f| f.0 == flag)
            .and_then(|f| f.1.as_deref())
    }

    /// Whether switch `flag` was given.
    pub fn has(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f.0 == flag)
    }
}
