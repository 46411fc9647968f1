//! Ctrl-C during a run: the first stops workers claiming new trials and cancels the model
//! requests in flight; a second exits at once (status 130). The handler is installed once per
//! process, on the first question.

use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the first Ctrl-C: runs stop claiming new trials.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Whether Ctrl-C was pressed (the handler is installed once per process, on the first call);
/// a second Ctrl-C exits at once.
pub fn interrupted() -> bool {
    static HANDLER: std::sync::Once = std::sync::Once::new();
    HANDLER.call_once(|| {
        std::thread::spawn(|| {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            rt.block_on(async {
                if tokio::signal::ctrl_c().await.is_ok() {
                    eprintln!(
                        "\nclawrun: stopping after the trials in flight; their model requests are cancelled (Ctrl-C again to quit now)"
                    );
                    INTERRUPTED.store(true, Ordering::SeqCst);
                    clawrun_agents::llm::cancel_requests();
                    if tokio::signal::ctrl_c().await.is_ok() {
                        std::process::exit(130);
                    }
                }
            });
        });
    });
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Forgets a Ctrl-C already handled (`clawrun fuzz` stops its search on one, then still
/// plays its reproducers, each a short run; a second Ctrl-C still exits at once).
pub fn clear_interrupted() {
    INTERRUPTED.store(false, Ordering::SeqCst);
}
