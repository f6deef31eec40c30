//! Progress of long work (baking, crowd frames, renders) on stderr. indicatif's stderr target
//! hides itself when stderr is not a terminal, so piped or captured output never holds progress
//! and stdout (`--json`) stays clean. A bar dropped early (on an error) clears itself first.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressFinish, ProgressStyle};

/// How often a spinner redraws while one step blocks (a pipeline compile, a file write).
const TICK: Duration = Duration::from_millis(120);

const BAR_TEMPLATE: &str = "{prefix} {bar:32} {pos}/{len} {msg} ({elapsed}, {eta} left)";
const STEPS_TEMPLATE: &str = "{prefix} {spinner} {msg} ({elapsed})";

/// A bar counting `len` items of work named `what` (e.g. `"crowd frames"`), on stderr.
pub fn bar(len: u64, what: &str) -> ProgressBar {
    bar_to(ProgressDrawTarget::stderr(), len, what)
}

/// A spinner for work named `what` that shows its current step (set with `set_message`), on
/// stderr.
pub fn steps(what: &str) -> ProgressBar {
    steps_to(ProgressDrawTarget::stderr(), what)
}

fn bar_to(target: ProgressDrawTarget, len: u64, what: &str) -> ProgressBar {
    let style = ProgressStyle::with_template(BAR_TEMPLATE)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
    ProgressBar::with_draw_target(Some(len), target)
        .with_style(style)
        .with_prefix(what.to_string())
        .with_finish(ProgressFinish::AndClear)
}

fn steps_to(target: ProgressDrawTarget, what: &str) -> ProgressBar {
    let style = ProgressStyle::with_template(STEPS_TEMPLATE)
        .unwrap_or_else(|_| ProgressStyle::default_spinner());
    let spinner = ProgressBar::with_draw_target(None, target)
        .with_style(style)
        .with_prefix(what.to_string())
        .with_finish(ProgressFinish::AndClear);
    if !spinner.is_hidden() {
        spinner.enable_steady_tick(TICK);
    }
    spinner
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::sync::{Arc, Mutex};

    use indicatif::TermLike;

    use super::*;

    /// A terminal that keeps what is written to it.
    #[derive(Debug, Clone, Default)]
    struct Screen(Arc<Mutex<String>>);

    impl Screen {
        fn text(&self) -> String {
            self.0.lock().map(|s| s.clone()).unwrap_or_default()
        }
        fn push(&self, s: &str) -> io::Result<()> {
            if let Ok(mut text) = self.0.lock() {
                text.push_str(s);
            }
            Ok(())
        }
    }

    impl TermLike for Screen {
        fn width(&self) -> u16 {
            120
        }
        fn move_cursor_up(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> io::Result<()> {
            self.push(s)?;
            self.push("\n")
        }
        fn write_str(&self, s: &str) -> io::Result<()> {
            self.push(s)
        }
        fn clear_line(&self) -> io::Result<()> {
            self.push("<clear>")
        }
        fn flush(&self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn bar_shows_its_work_and_count_then_clears_when_dropped() {
        let screen = Screen::default();
        let target = ProgressDrawTarget::term_like_with_hz(Box::new(screen.clone()), 1);
        let bar = bar_to(target, 10, "crowd frames");
        bar.set_position(3);
        bar.tick();
        let shown = screen.text();
        assert!(shown.contains("crowd frames"), "{shown:?}");
        assert!(shown.contains("3/10"), "{shown:?}");
        drop(bar);
        assert!(screen.text().ends_with("<clear>"), "{:?}", screen.text());
    }

    #[test]
    fn steps_show_the_current_step() {
        let screen = Screen::default();
        let target = ProgressDrawTarget::term_like_with_hz(Box::new(screen.clone()), 1);
        let steps = steps_to(target, "render");
        steps.set_message("drawing");
        steps.tick();
        let shown = screen.text();
        assert!(shown.contains("render"), "{shown:?}");
        assert!(shown.contains("drawing"), "{shown:?}");
    }
}
