//! The process's model-HTTP runtime: every request of an [`LlmClient`](super::LlmClient) runs
//! here, on one thread that always polls it, whatever runtime awaits the answer.
//!
//! A client's connection pool outlives the request that opened each connection, and hyper
//! drives a connection from a task on the runtime current when it was made. Clawrun's workers
//! each run a current-thread runtime of their own, polled only while the worker waits on it; a
//! client shared by workers (the judge's in `clawrun judge`) then sent requests down
//! connections of an idle worker's runtime, which stalled until that worker ran again and
//! failed with "dispatch task is gone: runtime dropped the dispatch task" once it finished.

use std::future::Future;
use std::sync::OnceLock;

use tokio::runtime::Handle;
use tokio::task::JoinHandle;

/// The runtime's handle (its thread blocks on it for the life of the process).
static IO: OnceLock<Result<Handle, String>> = OnceLock::new();

/// The handle of the model-HTTP runtime, started on first use.
fn handle() -> Result<&'static Handle, String> {
    IO.get_or_init(|| {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the model HTTP runtime: {e}"))?;
        let handle = rt.handle().clone();
        std::thread::Builder::new()
            .name("clawrun-llm-http".into())
            .spawn(move || rt.block_on(std::future::pending::<()>()))
            .map_err(|e| format!("cannot start the model HTTP thread: {e}"))?;
        Ok(handle)
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// Aborts the task when the caller stops waiting (a cancelled request, a dropped future).
struct AbortOnDrop<T>(JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Runs `job` on the model-HTTP runtime and waits for it from any runtime; `Err` when that
/// runtime cannot run it.
pub(crate) async fn run<F>(job: F) -> Result<F::Output, String>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let mut task = AbortOnDrop(handle()?.spawn(job));
    (&mut task.0)
        .await
        .map_err(|e| format!("the model HTTP task failed: {e}"))
}
