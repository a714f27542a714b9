// Drag and drop with Pointer Events: one code path for mouse, pen and touch.
//
// A draggable element carries data-drag (and the card's data-zone/face/occ/meld); a drop
// target carries data-drop ("hand", "staging", "new", "meld" with data-meld). A press that
// moves less than THRESHOLD pixels is a click and is left to the click handlers. Cards set
// `touch-action: none` in CSS so that a finger drags the card instead of scrolling the page.

const THRESHOLD = 6;

export function installDnd({ payloadFor, onDrop, onDragStart }) {
  let press = null; // {id, x, y, el, payload, ghost, dragging, target}
  let suppressClick = false;

  const targetAt = (x, y) => {
    const el = document.elementFromPoint(x, y);
    return el ? el.closest("[data-drop]") : null;
  };

  const cleanup = () => {
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
    press = { id: ev.pointerId, x: ev.clientX, y: ev.clientY, el, payload: null, ghost: null, dragging: false, target: null, type: ev.pointerType };
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
    const tgt = targetAt(ev.clientX, ev.clientY);
    if (tgt !== press.target) {
      if (press.target) press.target.classList.remove("drop-hover");
      if (tgt) tgt.classList.add("drop-hover");
      press.target = tgt;
    }
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
