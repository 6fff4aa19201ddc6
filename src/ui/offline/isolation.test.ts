import { describe, expect, it } from 'vitest';
import { isolationStep, type IsolationState } from './isolation';

const base: IsolationState = {
  isolated: false,
  serviceWorkers: true,
  reloadedBySelf: false,
  gaveUpRecently: false,
  busy: false,
};

describe('isolationStep', () => {
  it('does nothing where the page is isolated already (a host that sends the headers)', () => {
    expect(isolationStep({ ...base, isolated: true })).toBe('none');
    expect(isolationStep({ ...base, isolated: true, busy: true })).toBe('none');
  });

  it('does nothing without service workers (nothing could add the headers)', () => {
    expect(isolationStep({ ...base, serviceWorkers: false })).toBe('none');
  });

  it('reloads once the worker is active, when the reader has not started anything', () => {
    expect(isolationStep(base)).toBe('reload');
  });

  it('offers the reload instead once the reader has started something', () => {
    expect(isolationStep({ ...base, busy: true })).toBe('offer');
  });

  it('gives up when its own reload did not isolate the page: no loop', () => {
    expect(isolationStep({ ...base, reloadedBySelf: true })).toBe('give-up');
    expect(isolationStep({ ...base, reloadedBySelf: true, busy: true })).toBe('give-up');
  });

  it('does not try again for a while after giving up', () => {
    expect(isolationStep({ ...base, gaveUpRecently: true })).toBe('none');
  });
});
