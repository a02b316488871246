/**
 * Rate-limit windows are fixed minutes of the wall clock. A test that counts several calls inside one window
 * starts early enough in a window that its calls cannot straddle the window's end (where the count starts again).
 */
export async function startEarlyInRateWindow(secondsNeeded = 15): Promise<void> {
  const msLeft = 60_000 - (Date.now() % 60_000);
  if (msLeft < secondsNeeded * 1000) await new Promise((resolve) => setTimeout(resolve, msLeft + 100));
}
