// How a player's name fits its seat panel whole. A seat has a fixed width and its name row a
// fixed height (the panel must not grow: a taller or wider seat runs into the played cards or
// off a phone), so a long name is set smaller rather than cut: first on one line down to a
// smallest size, then on two lines at half the row's height (in regular weight); only a name that does not fit
// even so is cut (with an ellipsis, and can be focused to read it whole; the full name is
// always its title and in the seat's label). The text is measured once on a canvas and given
// to the style sheet as --name-em, which picks the size against its --seat-name-* figures
// (smaller on a phone); so the fit is part of the drawn tree and an in-place update
// (patch.js) keeps it.

const context = document.createElement("canvas").getContext("2d");
const widths = new Map(); // weight and name → its width at a font size of 1px in the page's font
const SLACK = 0.96; // canvas and layout round differently; leave a little room

/** The text's width in em (at a font size of 1px) in the page's font: other narrow names (the score pad's) fit by it too. */
export function widthAt1px(text, weight = 700) {
  const key = `${weight} ${text}`;
  let width = widths.get(key);
  if (width === undefined) {
    context.font = `${weight} 100px ${getComputedStyle(document.body).fontFamily}`;
    width = context.measureText(text).width / 100;
    if (widths.size > 1000) widths.clear();
    widths.set(key, width);
  }
  return width;
}

function px(style, property) {
  return parseFloat(style.getPropertyValue(property)) || 0;
}

/** Lines the text takes at `size` (regular weight) in a row `room` wide, breaking at spaces, else anywhere. */
function linesNeeded(text, size, room) {
  let lines = 1;
  let used = 0;
  for (const word of text.split(/(?<= )/)) {
    const width = widthAt1px(word, 400) * size;
    if (used + width <= room) {
      used += width;
    } else if (width <= room) {
      lines += used > 0 ? 1 : 0;
      used = width;
    } else {
      for (const char of word) { // a word longer than the row breaks anywhere
        const w = widthAt1px(char, 400) * size;
        if (used + w > room) { lines += 1; used = 0; }
        used += w;
      }
    }
  }
  return lines;
}

/**
 * `{em, cut}`: the name's width in em (the style sheet sets its size from it and the room it
 * has, so a turned phone refits without a redraw), and whether even two lines at the smallest
 * size do not hold it in the room the style sheet gives now.
 */
export function seatNameFit(name) {
  const em = widthAt1px(name);
  const style = getComputedStyle(document.documentElement);
  const room = px(style, "--seat-name-room") * SLACK;
  const smallest = px(style, "--seat-name-min");
  const twoLines = px(style, "--seat-name-two");
  const cut = Boolean(room) && em * smallest > room && linesNeeded(name, twoLines, room) > 2;
  return {em: Math.round(em * 1000) / 1000, cut};
}
