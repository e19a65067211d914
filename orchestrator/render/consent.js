// Dismisses consent banners, in an isolated world: first those of the
// consent managers in the list (o.rules), by the manager's own refusal
// button when it shows one and by hiding its containers; then, generically,
// fixed or sticky overlays that read as a cookie notice, by hiding them.
// It clicks nothing but the buttons the list names.
(async (o) => {
  const out = {found: [], dismissed: [], rejected: [], hidden: 0, generic: 0, unlocked: false};
  const all = (sel) => { try { return Array.from(document.querySelectorAll(sel)); } catch (e) { return []; } };
  const shown = (el) => {
    if (!el.isConnected || el.getClientRects().length === 0) return false;
    const s = getComputedStyle(el);
    return s.display !== "none" && s.visibility !== "hidden" && s.visibility !== "collapse";
  };
  // Hidden inline, shown or not: the Markdown reads no stylesheet, so a
  // banner its manager keeps hidden for now would be text otherwise.
  // Counted when it showed.
  const hide = (el) => {
    const was = shown(el);
    el.style.setProperty("display", "none", "important");
    if (was) out.hidden++;
    return was;
  };
  const classes = new Set();

  for (const rule of o.rules) {
    if (!rule.detect.some((sel) => all(sel).length > 0)) continue;
    out.found.push(rule.name);
    const before = out.hidden;
    let rejected = false;
    for (const sel of rule.reject || []) {
      const button = all(sel).find(shown);
      if (button) {
        button.click();
        rejected = true;
        out.rejected.push(rule.name);
        break;
      }
    }
    for (const sel of rule.hide || []) all(sel).forEach(hide);
    if (rejected || out.hidden > before) out.dismissed.push(rule.name);
    for (const c of rule.unlock || []) classes.add(c);
  }

  // The generic rule: an element that stays on screen as the page
  // scrolls (fixed or sticky), spans the viewport's width or is a dialog,
  // is short, speaks of cookies or consent, and holds a button that
  // accepts or refuses them. Its full-screen backdrop, a fixed layer
  // with no text, goes with it.
  const vw = window.innerWidth, vh = window.innerHeight;
  const topic = new RegExp(o.topic, "i"), answer = new RegExp(o.answer, "i");
  const fixed = [];
  const stack = Array.from((document.body || document.documentElement).children).reverse();
  for (let seen = 0; stack.length > 0 && seen < o.maxElements; seen++) {
    const el = stack.pop();
    const pos = getComputedStyle(el).position;
    // What is inside a fixed element moves with it: look no further in.
    if (pos === "fixed" || pos === "sticky") { fixed.push(el); continue; }
    for (let c = el.lastElementChild; c; c = c.previousElementSibling) stack.push(c);
  }
  // A backdrop dims the page: a see-through colour, or a layer made
  // see-through.
  const dims = (el) => {
    const s = getComputedStyle(el);
    const m = s.backgroundColor.match(/rgba?\(([^)]*)\)/);
    const alpha = m && m[1].split(/[ ,\/]+/).length > 3 ? parseFloat(m[1].split(/[ ,\/]+/)[3]) : 1;
    return alpha > 0 && (alpha < 1 || parseFloat(s.opacity) < 1);
  };
  let notice = false;
  const backdrops = [];
  for (const el of fixed) {
    if (!shown(el)) continue;
    const r = el.getBoundingClientRect();
    const text = (el.innerText || "").trim();
    if (text === "") {
      if (r.width >= vw * 0.9 && r.height >= vh * 0.9 && dims(el)) backdrops.push(el);
      continue;
    }
    const dialog = el.matches('dialog, [role="dialog"], [role="alertdialog"], [aria-modal="true"]');
    if (text.length > o.maxText || !topic.test(text) || !(r.width >= vw * 0.9 || dialog)) continue;
    const controls = el.querySelectorAll('button, [role="button"], a, input[type="button"], input[type="submit"]');
    if (!Array.from(controls).some((b) => {
      const t = (b.innerText || b.value || "").trim();
      return t.length <= o.maxAnswer && answer.test(t);
    })) continue;
    if (hide(el)) out.generic++;
    notice = true;
  }
  if (notice) backdrops.forEach(hide);

  // Scrolling that a banner locked comes back once a banner is gone.
  if (out.dismissed.length > 0 || notice) {
    for (const root of [document.documentElement, document.body]) {
      if (!root) continue;
      for (const c of classes) {
        if (root.classList.contains(c)) { root.classList.remove(c); out.unlocked = true; }
      }
      const s = getComputedStyle(root);
      if (s.overflowY === "hidden" || s.overflow === "hidden") {
        root.style.setProperty("overflow", "auto", "important");
        out.unlocked = true;
      }
    }
  }
  return out;
})
