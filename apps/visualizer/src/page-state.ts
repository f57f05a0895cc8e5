/// <reference lib="dom" />

/**
 * The page's state as the body's `data-state` says it (the CSS shows the empty page, the loading
 * line, the error or the run by it), and fetching a trace by URL.
 */

export type PageState = 'empty' | 'loading' | 'ready' | 'error'

export function setPageState(state: PageState): void {
  document.body.dataset.state = state
}

/** While a trace loads, the page says which (not *No trace open yet*). */
export function showLoading(box: HTMLElement, name: string): void {
  box.textContent = `Loading ${name}…`
  setPageState('loading')
}

/** The text at `url`; an HTTP error throws with its status. */
export async function fetchText(url: string): Promise<string> {
  const response = await fetch(url)
  if (!response.ok) throw new Error(`${response.status} ${response.statusText}`)
  return response.text()
}

/** The file name a URL ends with, to title the run. */
export function fileName(url: string): string {
  return decodeURIComponent(url.split('/').pop() || url)
}
