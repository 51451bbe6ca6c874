/**
 * Where a value turns amber or red. Data-centre GPUs throttle from about
 * 85–90 °C; below 80 °C nothing is worth a colour.
 */
const TEMP_WARN_C = 80;
const TEMP_DANGER_C = 88;

export function temperatureTone(celsius: number | null): string {
  if (celsius === null) return "";
  if (celsius >= TEMP_DANGER_C) return "font-medium text-red-700 dark:text-red-400";
  if (celsius >= TEMP_WARN_C) return "font-medium text-amber-700 dark:text-amber-300";
  return "";
}
