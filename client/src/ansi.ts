// Terminal output -> plain text: removes escape sequences (CSI colours and cursor moves, OSC
// sequences such as the shell-integration marks `ESC ] 633 ; C BEL`, DCS/APC strings, two-byte
// escapes), carriage-return overprints and other control characters except tab and newline.

// OSC/DCS/SOS/PM/APC strings end with BEL or ST (ESC \); unterminated ones run to the end.
const STRING_SEQ = /\x1b[\]PX^_][\s\S]*?(?:\x07|\x1b\\|$)|\x9d[\s\S]*?(?:\x07|\x9c|$)/g;
const CSI = /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]/g;
const TWO_BYTE = /\x1b[ -/]*[0-~]/g;
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

export function stripTerminalEscapes(text: string): string {
  const plain = text.replace(STRING_SEQ, '').replace(CSI, '').replace(TWO_BYTE, '');
  // "progress\rdone" shows as "done": keep what follows the last CR of each line.
  const lines = plain.split('\n').map((line) => {
    const l = line.endsWith('\r') ? line.slice(0, -1) : line;
    const cr = l.lastIndexOf('\r');
    return cr >= 0 ? l.slice(cr + 1) : l;
  });
  return lines.join('\n').replace(CONTROL, '');
}
