import { useEffect, useState } from 'react';

/** The phone breakpoint of app.css: one column below it. */
export const NARROW_QUERY = '(max-width: 760px)';

/** Whether the page is at most 760 px wide (app.css's phone layout), following resizes. */
export function useNarrowScreen(query: string = NARROW_QUERY): boolean {
  const [narrow, setNarrow] = useState(() =>
    typeof window !== 'undefined' && 'matchMedia' in window
      ? window.matchMedia(query).matches
      : false,
  );
  useEffect(() => {
    if (!('matchMedia' in window)) return;
    const list = window.matchMedia(query);
    const update = () => setNarrow(list.matches);
    update();
    list.addEventListener('change', update);
    return () => list.removeEventListener('change', update);
  }, [query]);
  return narrow;
}
