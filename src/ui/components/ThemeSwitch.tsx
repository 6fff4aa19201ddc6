import { useEffect, useState } from 'react';

export type Theme = 'system' | 'light' | 'dark';

const KEY = 'fragrel-theme';

function storedTheme(): Theme {
  try {
    const t = localStorage.getItem(KEY);
    return t === 'light' || t === 'dark' ? t : 'system';
  } catch {
    return 'system';
  }
}

/**
 * Light, dark, or the system's setting (the default: app.css follows prefers-color-scheme).
 * The choice is a display preference, kept in localStorage rather than the library's store.
 */
export function ThemeSwitch() {
  const [theme, setTheme] = useState<Theme>(storedTheme);
  useEffect(() => {
    const root = document.documentElement;
    if (theme === 'system') root.removeAttribute('data-theme');
    else root.setAttribute('data-theme', theme);
    try {
      if (theme === 'system') localStorage.removeItem(KEY);
      else localStorage.setItem(KEY, theme);
    } catch {
      // Storage refused (private mode): the choice lasts for this page only.
    }
  }, [theme]);
  return (
    <label className="theme-switch">
      Colours
      <select
        value={theme}
        onChange={(e) => setTheme(e.target.value as Theme)}
        data-testid="theme-switch"
      >
        <option value="system">as the system</option>
        <option value="light">light</option>
        <option value="dark">dark</option>
      </select>
    </label>
  );
}
