// Drag and drop with Pointer Events: one code path for mouse, pen and touch.
//
// A draggable element carries data-drag (and the card's data-zone/face/occ/meld); a drop
// target carries data-drop ("hand", "staging", "new", "meld" with data-meld). A press that
// moves less than THRESHOLD pixels is a click and is left to the click handlers. Cards set
// `touch-action: none` in CSS so that a finger drags the card instead of scrolling the page.
//
// Auto-scroll: while a drag rests near the top or bottom edge of the scrolling table (the
// element with data-autoscroll; the window when that one does not scroll), the table scrolls
// that way, faster nearer the edge, and the drop target under the still pointer follows. It
// starts only once the drag has been inside the table away from its edges (a drag that starts
// in the hand just below the table does not scroll it) and has rested DWELL ms in the band.

const THRESHOLD = 6;
export const EDGE = 56; // px: the band along the table's top and bottom edges
const OUTSIDE = 90; // px: beyond the edge, the band goes on at full speed
const SPEED = 900; // px per second at the very edge
const DWELL = 120; // ms in the band before scrolling starts

export function installDnd({ payloadFor, onDrop, onDragStart }) {
  let press = null; // {id, x, y, el, payload, ghost, dragging, target}
  let suppressClick = false;
  let frame = 0; // the auto-scroll's animation frame, while one is asked for

  const targetAt = (x, y) => {
    const el = document.elementFromPoint(x, y);
    return el ? el.closest("[data-drop]") : null;
  };

  const hover = (x, y) => {
    const tgt = targetAt(x, y);
    // A render may have replaced the hovered element: mark the live one.
    if (tgt !== press.target || (tgt && !tgt.classList.contains("drop-hover"))) {
      if (press.target) press.target.classList.remove("drop-hover");
      if (tgt) tgt.classList.add("drop-hover");
      press.target = tgt;
    }
  };

  const autoScroll = (now) => {
    frame = 0;
    if (!press || !press.dragging) return;
    const sc = scroller();
    const speed = sc ? edgeSpeed(sc.rect, press.lx, press.ly, press) : 0;
    if (!speed) { press.since = null; press.lastFrame = null; return; }
    if (press.since === null) press.since = now;
    if (now - press.since >= DWELL && sc.canScroll(speed)) {
      const dt = press.lastFrame === null ? 16 : Math.min(50, now - press.lastFrame);
      sc.by(speed * SPEED * dt / 1000);
      hover(press.lx, press.ly);
    }
    press.lastFrame = now;
    frame = requestAnimationFrame(autoScroll);
  };

  const cleanup = () => {
    if (frame) { cancelAnimationFrame(frame); frame = 0; }
    if (!press) return;
    if (press.ghost) press.ghost.remove();
    if (press.target) press.target.classList.remove("drop-hover");
    document.body.classList.remove("is-dragging");
    for (const el of document.querySelectorAll(".drag-source")) el.classList.remove("drag-source");
    press = null;
  };

  document.addEventListener("pointerdown", (ev) => {
    if (ev.button !== undefined && ev.button > 0) return;
    const el = ev.target.closest("[data-drag]");
    if (!el || press) return;
    press = { id: ev.pointerId, x: ev.clientX, y: ev.clientY, el, payload: null, ghost: null, dragging: false, target: null, type: ev.pointerType,
      lx: ev.clientX, ly: ev.clientY, armed: false, since: null, lastFrame: null };
  });

  document.addEventListener("pointermove", (ev) => {
    if (!press || ev.pointerId !== press.id) return;
    if (!press.dragging) {
      if (Math.hypot(ev.clientX - press.x, ev.clientY - press.y) < THRESHOLD) return;
      const payload = payloadFor(press.el);
      if (!payload) { press = null; return; }
      press.payload = payload;
      press.dragging = true;
      document.body.classList.add("is-dragging");
      press.ghost = makeGhost(payload.elements.length ? payload.elements : [press.el]);
      for (const e of payload.elements) e.classList.add("drag-source");
      if (onDragStart) onDragStart(payload);
    }
    ev.preventDefault();
    press.ghost.style.transform = `translate(${ev.clientX + 8}px, ${ev.clientY + 8}px)`;
    press.lx = ev.clientX;
    press.ly = ev.clientY;
    hover(ev.clientX, ev.clientY);
    if (!frame) frame = requestAnimationFrame(autoScroll);
  }, { passive: false });

  const finish = (ev, cancelled) => {
    if (!press || ev.pointerId !== press.id) return;
    const p = press;
    if (p.dragging) {
      // The click that follows this pointerup (mouse: same task) belongs to the drag.
      suppressClick = true;
      setTimeout(() => { suppressClick = false; }, 0);
      const tgt = cancelled ? null : targetAt(ev.clientX, ev.clientY);
      cleanup();
      if (tgt) onDrop(p.payload, tgt, ev.clientX, ev.clientY);
    } else {
      press = null;
    }
  };
  document.addEventListener("pointerup", (ev) => finish(ev, false));
  document.addEventListener("pointercancel", (ev) => finish(ev, true));
  // A drag ends with a click on whatever is under the pointer: swallow it.
  document.addEventListener("click", (ev) => {
    if (suppressClick) { ev.stopPropagation(); ev.preventDefault(); suppressClick = false; }
  }, true);
  window.addEventListener("keydown", (ev) => { if (ev.key === "Escape" && press && press.dragging) cleanup(); });
}

/** What a drag scrolls: the table (data-autoscroll) when it can scroll, else the window when
 * the page can; null when neither. {rect, canScroll(direction), by(px)}. */
function scroller() {
  const el = document.querySelector("[data-autoscroll]");
  if (el && el.scrollHeight > el.clientHeight + 1) {
    return {
      rect: el.getBoundingClientRect(),
      canScroll: (d) => (d < 0 ? el.scrollTop > 0 : el.scrollTop + el.clientHeight < el.scrollHeight - 1),
      by: (px) => { el.scrollTop += px; },
    };
  }
  const doc = document.scrollingElement || document.documentElement;
  if (doc.scrollHeight > window.innerHeight + 1) {
    return {
      rect: { top: 0, bottom: window.innerHeight, left: 0, right: window.innerWidth },
      canScroll: (d) => (d < 0 ? window.scrollY > 0 : window.scrollY + window.innerHeight < doc.scrollHeight - 1),
      by: (px) => { window.scrollBy(0, px); },
    };
  }
  return null;
}

/** The auto-scroll's direction and strength at pointer (x, y) for a scroller's `rect`: -1..1
 * (negative: up), 0 outside the bands. Arms `press` once the pointer is inside, off the bands. */
export function edgeSpeed(rect, x, y, press) {
  if (x < rect.left || x > rect.right) return 0;
  const top = y - rect.top, bottom = rect.bottom - y;
  const band = Math.min(EDGE, (rect.bottom - rect.top) / 3);
  if (top >= band && bottom >= band) { press.armed = true; return 0; }
  if (!press.armed) return 0;
  if (top < band && top > -OUTSIDE) return -Math.min(1, (band - top) / band);
  if (bottom < band && bottom > -OUTSIDE) return Math.min(1, (band - bottom) / band);
  return 0;
}

function makeGhost(elements) {
  const g = document.createElement("div");
  g.className = "drag-ghost";
  g.setAttribute("aria-hidden", "true");
  for (const e of elements.slice(0, 8)) {
    const c = e.cloneNode(true);
    c.removeAttribute("tabindex");
    c.removeAttribute("id");
    g.appendChild(c);
  }
  document.body.appendChild(g);
  return g;
}
