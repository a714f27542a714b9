// How big the table's cards are: the biggest size at which every meld fits the table's room
// without scrolling (fewer melds, bigger cards). Pure: no imports, no DOM (tests/js).

// The table's card sizes, biggest first: width and height (px), and the step from one card to
// the next within a meld (the cards overlap; a step over half the width keeps every card's
// centre, and so a click or a drag started there, on that card).
export const TABLE_SIZES = [
  { w: 46, h: 66, step: 28 },
  { w: 40, h: 57, step: 24 },
  { w: 35, h: 50, step: 21 },
  { w: 31, h: 44, step: 18 },
  { w: 27, h: 39, step: 16 },
];

/** The biggest card size at which all of `melds` (MeldView list) plus the New meld tile fit in
 * `room` ({w, h} px) without scrolling, melds wrapping into rows; the smallest when none does.
 * Returns {tier, w, h, step}: fewer melds, bigger cards. */
export function tableCardSize(melds, room) {
  const pad = 14, gapX = 8, gapY = 8, head = 18;
  for (let tier = 0; tier < TABLE_SIZES.length; tier++) {
    const sz = TABLE_SIZES[tier];
    const widths = melds.map((m) => sz.w + Math.max(0, m.cards.length - 1) * sz.step + pad);
    widths.push(sz.w * 2 + 10 + pad); // the New meld tile
    let rows = 1, x = 0;
    for (const w of widths) {
      if (x > 0 && x + gapX + w > room.w) { rows++; x = w; } else x += (x > 0 ? gapX : 0) + w;
    }
    // + the removed cards' row above the melds (the legend below them may scroll)
    const height = rows * (sz.h + head + pad) + (rows - 1) * gapY + 30;
    if (height <= room.h) return { tier, ...sz };
  }
  return { tier: TABLE_SIZES.length - 1, ...TABLE_SIZES[TABLE_SIZES.length - 1] };
}
