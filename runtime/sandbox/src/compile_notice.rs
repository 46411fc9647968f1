//! What the terminal shows while a large program compiles (the Python interpreter, the media
//! tools: seconds to minutes, once per machine): the
//! line saying so, then (with the `progress` feature) a spinner with the time so far, and the
//! time it took at the end.

use std::time::Instant;

/// The notice of a compile in progress; finished when dropped.
pub(crate) struct CompileNotice {
    /// When the compile started.
    started: Instant,
    /// The spinner, with the `progress` feature.
    #[cfg(feature = "progress")]
    spinner: indicatif::ProgressBar,
}

impl CompileNotice {
    /// Says `what` is being compiled and starts showing the time it takes.
    pub(crate) fn start(what: &str) -> CompileNotice {
        eprintln!("clawrun: {what}");
        CompileNotice {
            started: Instant::now(),
            #[cfg(feature = "progress")]
            spinner: {
                let spinner = indicatif::ProgressBar::new_spinner();
                if let Ok(style) =
                    indicatif::ProgressStyle::with_template("{spinner} compiling [{elapsed}]")
                {
                    spinner.set_style(style);
                }
                spinner.enable_steady_tick(std::time::Duration::from_millis(200));
                spinner
            },
        }
    }
}

impl Drop for CompileNotice {
    fn drop(&mut self) {
        #[cfg(feature = "progress")]
        self.spinner.finish_and_clear();
        eprintln!(
            "clawrun: compiled in {:.0} s",
            self.started.elapsed().as_secs_f64()
        );
    }
}
