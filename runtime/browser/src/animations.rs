//! CSS animations, transitions and Web Animations on virtual time. Chromium's virtual time
//! drives timers, `Date`, `performance.now()` and `requestAnimationFrame`'s clock, but the
//! animation timeline follows the real frame clock. So the page's timelines are stopped
//! (`Animation.setPlaybackRate(0)`), and this script, present in every document from its
//! start, sets each running animation's current time from `Date.now()` (virtual, whole milliseconds;
//! `performance.now()` is coarsened with jitter):
//! every 10 ms of virtual time, and once more right before each frame.

/// The script added to every new document of a page.
pub const SYNC_SCRIPT: &str = r#"(() => {
  const births = new WeakMap();
  const sync = () => {
    if (!document.getAnimations) return;
    const now = Date.now();
    for (const a of document.getAnimations()) {
      if (!births.has(a)) births.set(a, now);
      if (a.playState !== 'running') continue;
      a.currentTime = (now - births.get(a)) * a.playbackRate;
    }
  };
  document.addEventListener('DOMContentLoaded', sync);
  setInterval(sync, 10);
  Object.defineProperty(window, '__clawrunSyncAnimations', { value: sync });
})();"#;

/// The expression run right before each frame.
pub const SYNC_NOW: &str = "window.__clawrunSyncAnimations && window.__clawrunSyncAnimations()";
