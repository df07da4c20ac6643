// Python/glibc strftime in the C locale over a set of broken-down time fields.
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

export interface TimeFields {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
  weekday: number; // 0 = Sunday
}

export function utcFields(date: Date): TimeFields {
  return {
    year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate(), hour: date.getUTCHours(),
    minute: date.getUTCMinutes(), second: date.getUTCSeconds(), millisecond: date.getUTCMilliseconds(), weekday: date.getUTCDay(),
  };
}

export function localFields(date: Date): TimeFields {
  return {
    year: date.getFullYear(), month: date.getMonth() + 1, day: date.getDate(), hour: date.getHours(),
    minute: date.getMinutes(), second: date.getSeconds(), millisecond: date.getMilliseconds(), weekday: date.getDay(),
  };
}

const p2 = (n: number) => String(n).padStart(2, '0');
const p3 = (n: number) => String(n).padStart(3, '0');

function dayOfYear(t: TimeFields): number {
  return Math.round((Date.UTC(t.year, t.month - 1, t.day) - Date.UTC(t.year, 0, 1)) / 86400000) + 1;
}

function isoWeek(t: TimeFields): [number, number] {
  const date = new Date(Date.UTC(t.year, t.month - 1, t.day));
  date.setUTCDate(date.getUTCDate() - ((t.weekday + 6) % 7) + 3); // Thursday of this ISO week
  const isoYear = date.getUTCFullYear();
  const yearStart = Date.UTC(isoYear, 0, 1);
  return [isoYear, Math.floor((date.getTime() - yearStart) / 86400000 / 7) + 1];
}

export function strftime(format: string, t: TimeFields): string {
  let out = '';
  for (let i = 0; i < format.length; i++) {
    const ch = format[i];
    if (ch !== '%' || i + 1 >= format.length) {
      out += ch;
      continue;
    }
    let spec = format[++i]!;
    let noPad = false;
    if (spec === '-' && i + 1 < format.length) {
      noPad = true;
      spec = format[++i]!;
    }
    const pad = (n: number, width = 2) => (noPad ? String(n) : String(n).padStart(width, '0'));
    const hour12 = t.hour % 12 === 0 ? 12 : t.hour % 12;
    switch (spec) {
      case 'Y': out += String(t.year); break;
      case 'y': out += pad(t.year % 100); break;
      case 'C': out += pad(Math.floor(t.year / 100)); break;
      case 'm': out += pad(t.month); break;
      case 'd': out += pad(t.day); break;
      case 'e': out += noPad ? String(t.day) : String(t.day).padStart(2, ' '); break;
      case 'H': out += pad(t.hour); break;
      case 'I': out += pad(hour12); break;
      case 'l': out += String(hour12).padStart(2, ' '); break;
      case 'M': out += pad(t.minute); break;
      case 'S': out += pad(t.second); break;
      case 'f': out += String(t.millisecond * 1000).padStart(6, '0'); break;
      case 'p': out += t.hour < 12 ? 'AM' : 'PM'; break;
      case 'P': out += t.hour < 12 ? 'am' : 'pm'; break;
      case 'a': out += DAYS[t.weekday]!.slice(0, 3); break;
      case 'A': out += DAYS[t.weekday]!; break;
      case 'b': case 'h': out += MONTHS[t.month - 1]!.slice(0, 3); break;
      case 'B': out += MONTHS[t.month - 1]!; break;
      case 'j': out += noPad ? String(dayOfYear(t)) : p3(dayOfYear(t)); break;
      case 'w': out += String(t.weekday); break;
      case 'u': out += String(t.weekday === 0 ? 7 : t.weekday); break;
      case 'U': out += pad(Math.floor((dayOfYear(t) + 6 - t.weekday) / 7)); break;
      case 'W': out += pad(Math.floor((dayOfYear(t) + 6 - ((t.weekday + 6) % 7)) / 7)); break;
      case 'V': out += pad(isoWeek(t)[1]); break;
      case 'G': out += String(isoWeek(t)[0]); break;
      case 'g': out += pad(isoWeek(t)[0] % 100); break;
      case 'D': out += `${p2(t.month)}/${p2(t.day)}/${p2(t.year % 100)}`; break;
      case 'x': out += `${p2(t.month)}/${p2(t.day)}/${p2(t.year % 100)}`; break;
      case 'F': out += `${t.year}-${p2(t.month)}-${p2(t.day)}`; break;
      case 'T': case 'X': out += `${p2(t.hour)}:${p2(t.minute)}:${p2(t.second)}`; break;
      case 'R': out += `${p2(t.hour)}:${p2(t.minute)}`; break;
      case 'r': out += `${p2(hour12)}:${p2(t.minute)}:${p2(t.second)} ${t.hour < 12 ? 'AM' : 'PM'}`; break;
      case 'c': out += `${DAYS[t.weekday]!.slice(0, 3)} ${MONTHS[t.month - 1]!.slice(0, 3)} ${String(t.day).padStart(2, ' ')} ${p2(t.hour)}:${p2(t.minute)}:${p2(t.second)} ${t.year}`; break;
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'z': case 'Z': break;
      case '%': out += '%'; break;
      default: out += '%' + (noPad ? '-' : '') + spec;
    }
  }
  return out;
}
