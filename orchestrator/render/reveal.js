// Brings in what a reader scrolling through the page would see, then
// returns to the top. It runs in an isolated world: it shares the page's
// DOM, not its globals, so a page cannot replace what it calls.
//
// o.budget: milliseconds it may take in all. o.settle: of those, at most
// this many wait for a script-built document to have content. o.minText:
// the text a built body has at least, unless it shows a picture.
// o.bottom: how far down it scrolls at most, in CSS pixels. o.grown:
// the viewport was made taller than the caller's for the step, just
// before it, which brought more of the page into view as a scroll would;
// o.doc: the document's height before. o.step: how long each step waits
// for the images that came into view, and how long a page that reacted
// to the last scroll must then stay unchanged. o.tail: how long a page
// that did not react to the last scroll is given to react. o.calm: how
// long a page that was not scrolled must have been unchanged. o.frame:
// how long a visible page is given to draw after a scroll.
// o.site: the page's site, whose resources are its own. o.ask: whether
// the caller can tell what the page asked the network for after a scroll.
//
// With o.ask, a page that has not grown once the wait at the end is over
// is not given up at once: the step pauses, answering {paused: true,
// since: ms since the last scroll, changed: whether the page changed
// after it}, and leaves revealer.resume() and revealer.finish() on the
// world's global object. The caller waits for what the page asked its
// site for and has not had yet (a list's next part that its server is
// slow to send, or one asked for before the scroll reached the list),
// then resumes; it resumes too when the page has had a part it asked for
// after the scroll and shows no change yet (it is adding it); else it
// finishes, which the step takes as a resume when such a part came while
// it was paused. It pauses once for each height of the document.
(async (o) => {
  const start = performance.now();
  const left = () => o.budget - (performance.now() - start);
  const sleep = (ms) => new Promise((res) => setTimeout(res, Math.max(0, Math.min(ms, left()))));
  // The next update of the rendering: what a scroll brought into view has
  // been laid out and the page's intersection observers have been told.
  // An observer made now is told last, after every observer the page
  // made before it, and a new observer is always told of its target's
  // first state. A visible page gets its update when the browser next
  // draws, which a busy machine can hold back for hundreds of
  // milliseconds: scrolling on before it would carry what came into view
  // out of it unseen, so the wait is up to o.frame, and once more for a
  // frame later than that (counted in out.late). A page in the
  // background gets no frames, and a short timer stands in.
  const frames = async () => {
    let told = false, io = null;
    const drawn = new Promise((res) => {
      io = new IntersectionObserver(() => { told = true; io.disconnect(); res(); });
      io.observe(document.documentElement);
    });
    const visible = document.visibilityState === "visible";
    await Promise.race([drawn, sleep(visible ? o.frame : 100)]);
    if (told) return;
    out.late++;
    if (visible) await Promise.race([drawn, sleep(o.frame)]);
    if (!told) io.disconnect();
  };
  const out = {late: 0, settled: 0, steps: 0, height: 0, images: 0, pending: 0, grew: false, cut: ""};
  const nav = performance.getEntriesByType("navigation")[0];

  // 1. A document that scripts are still writing: wait until it has some
  // content, within o.settle. Whether it has stopped changing is the
  // scroll's to wait for, at its end. A document without a script to run
  // is as it will be: a short page is short.
  const runnable = (s) => {
    const t = (s.type || "").trim().toLowerCase();
    return t === "" || t === "module" || /^(?:text|application)\/(?:x-)?(?:java|ecma)script$/.test(t);
  };
  if (document.body && Array.from(document.scripts).some(runnable)) {
    // Built: some text to read, or a picture of some size to look at.
    // The text of components' open shadow roots counts: innerText leaves
    // it out, and a page of components has little else.
    const shadowText = () => {
      let n = 0;
      const count = (scope) => {
        for (const el of scope.querySelectorAll("*")) {
          if (n >= o.minText) return;
          if (el.shadowRoot) {
            n += (el.shadowRoot.textContent || "").trim().length;
            for (const st of el.shadowRoot.querySelectorAll("style")) n -= st.textContent.length;
            count(el.shadowRoot);
          }
        }
      };
      count(document);
      return n;
    };
    const built = () => (document.body.innerText || "").trim().length >= o.minText || shadowText() >= o.minText ||
      Array.from(document.querySelectorAll("img, video, canvas")).some((el) => {
        const r = el.getBoundingClientRect();
        return r.width >= 100 && r.height >= 100;
      });
    const until = Math.min(o.settle, left());
    while (performance.now() - start < until && !built()) await sleep(50);
    out.settled = Math.round(performance.now() - start);
  }

  // 2. Images the browser defers until they near the viewport load now.
  for (const img of document.images) {
    if (img.loading === "lazy") img.loading = "eager";
  }
  for (const f of document.querySelectorAll('iframe[loading="lazy"]')) f.loading = "eager";

  // 3. Scroll down a viewport at a time, so that what loads on
  // intersection (data-src swaps, observers, the next part of a list)
  // loads, down to o.bottom. A viewport made taller has shown its first
  // screens already: once the page has been told, that counts as the
  // first scroll.
  const se = document.scrollingElement || document.documentElement;
  const vh = Math.max(window.innerHeight, 1);
  let bottom = o.bottom;
  const inView = () => Array.from(document.images).filter((img) => {
    if (img.complete) return false;
    const r = img.getBoundingClientRect();
    return r.bottom >= 0 && r.top <= vh;
  });
  // What the page does after a scroll: its document changes, or one of
  // its own site's resources arrives. What other sites do (a tag manager
  // adding scripts and frames, beacons, ads) is not the page reacting: it
  // goes on for as long as the page is open. o.site is the page's
  // registrable domain (or its address); without it, its host.
  let changed = nav && nav.loadEventEnd > 0 ? nav.loadEventEnd : performance.now();
  const touch = () => { changed = performance.now(); };
  const site = o.site || location.hostname;
  const ours = (u) => {
    try {
      const h = new URL(u, location.href).hostname;
      return h === site || h.endsWith("." + site);
    } catch (e) { return true; }
  };
  const furniture = new Set(["SCRIPT", "IFRAME", "LINK", "STYLE", "NOSCRIPT"]);
  const content = (n) => !furniture.has(n.nodeName);
  const mutated = (records) => {
    if (records.some((r) => Array.from(r.addedNodes).some(content) || Array.from(r.removedNodes).some(content))) touch();
  };
  // Paused, the step notes a fetch or XHR of the page's to its site that
  // ends before the caller answers (see answer).
  let asking = false, arrived = false;
  const fetched = (entries) => {
    const own = entries.filter((e) => ours(e.name));
    if (own.length === 0) return;
    touch();
    if (asking && own.some((e) => e.initiatorType === "fetch" || e.initiatorType === "xmlhttprequest")) arrived = true;
  };
  const watch = new MutationObserver(mutated);
  watch.observe(document.documentElement, {subtree: true, childList: true});
  let po = null;
  try {
    po = new PerformanceObserver((list) => fetched(list.getEntries()));
    po.observe({type: "resource"});
  } catch (e) {}
  // What the observers have and have not told yet: a resource that has
  // just arrived counts before its callback runs, which a busy page can
  // hold back past the end of a wait.
  const takeRecords = () => {
    mutated(watch.takeRecords());
    if (po) fetched(po.takeRecords());
  };
  let y = 0, scrolled = start, pausedAt = -1, moved = !!o.grown;
  if (moved) {
    await frames();
    // What the taller viewport lengthened (a hero as tall as the
    // viewport) moved what follows down: the bound moves with it.
    bottom += Math.max(0, Math.min(se.scrollHeight - o.doc, o.bottom));
  }
  // Scrolls on until the end, a bound, or a pause (true).
  const scrollOn = async () => {
    while (left() > 0) {
      const height = se.scrollHeight;
      if (y + vh >= height) {
        // At the end: a list that grows on scroll gets a moment to
        // grow, as long as the page is busy, at most o.step * 5. A page
        // that changed after the last scroll waits until it has not
        // changed for o.step; one that did not, o.tail after the scroll
        // (when nothing was scrolled, until it has not changed for
        // o.calm: none when nothing has changed lately). Resumed at the
        // same height after a pause, the page has had what it asked for,
        // and only adding it is left: at least o.step unless it changes,
        // at most o.step * 2 (its scripts may still be reading what came
        // on a busy main thread).
        const resumed = pausedAt === height;
        const t = performance.now(), settle = resumed ? o.step : moved ? o.tail : 0;
        const most = resumed ? o.step * 2 : o.step * 5;
        while (se.scrollHeight <= height && left() > 0) {
          takeRecords();
          const now = performance.now();
          const quiet = changed > scrolled ? o.step : moved ? o.tail : o.calm;
          if (now - t >= most || (now - t >= settle && now - changed >= quiet)) break;
          await sleep(50);
        }
        if (se.scrollHeight <= height) {
          if (!o.ask || !moved || resumed || left() <= 0) return false;
          pausedAt = height;
          return true;
        }
        out.grew = true;
        // Grown, and still within the viewport: its new end is waited
        // at in turn.
        if (y + vh >= se.scrollHeight) continue;
      }
      if (y + vh >= bottom) { out.cut = "height"; return false; }
      window.scrollTo({top: Math.min(y + vh, bottom), left: 0, behavior: "instant"});
      scrolled = performance.now();
      // Where the page is, not where it was asked to be: a short
      // document stops the scroll short, and one that does not scroll
      // (its own scrolling box, a lock) ends it.
      const was = y;
      y = se.scrollTop;
      if (y <= was) { out.cut = "stuck"; return false; }
      out.steps++;
      moved = true;
      await frames();
      const t = performance.now();
      while (inView().length > 0 && performance.now() - t < o.step && left() > 0) await sleep(25);
    }
    return false;
  };
  const finish = async () => {
    delete globalThis.revealer;
    watch.disconnect();
    if (po) po.disconnect();
    if (left() <= 0 && !out.cut) out.cut = "time";
    out.height = se.scrollHeight;

    // 4. Every image of the document, loaded or failed.
    const imgs = Array.from(document.images).filter((img) => img.currentSrc || img.src);
    out.images = imgs.length;
    const loaded = (img) => img.complete ? Promise.resolve() : new Promise((res) => {
      img.addEventListener("load", res, {once: true});
      img.addEventListener("error", res, {once: true});
    });
    await Promise.race([Promise.all(imgs.map(loaded)), sleep(left())]);
    // Decoded too, so the capture paints them rather than their space.
    await Promise.race([
      Promise.all(imgs.filter((img) => img.complete && img.naturalWidth > 0).slice(0, 1000)
        .map((img) => img.decode().catch(() => {}))),
      sleep(left()),
    ]);
    out.pending = imgs.filter((img) => !img.complete).length;

    // 5. Back to the top, where a capture starts.
    window.scrollTo({top: 0, left: 0, behavior: "instant"});
    await frames();
    return out;
  };
  const paused = () => {
    asking = true;
    arrived = false;
    return {paused: true, since: Math.round(performance.now() - scrolled), changed: changed > scrolled};
  };
  const run = async () => (await scrollOn()) ? paused() : finish();
  // The caller's answer to a pause. Told to finish, the step resumes
  // instead when a part the page asked its site for by script came while
  // the caller looked: the caller saw it end, but could not tell that it
  // was asked for after the scroll, since it reads the scroll's time off
  // another clock, a message late.
  const answer = (resume) => async () => {
    takeRecords();
    asking = false;
    return resume || arrived ? run() : finish();
  };
  globalThis.revealer = {resume: answer(true), finish: answer(false)};
  return run();
})
