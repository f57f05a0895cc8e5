/// <reference lib="dom" />

/**
 * The page's controls wired to what they do: the file picker and drag-and-drop, the playback
 * buttons and scrubber, the speed, layout and zoom menus, the wheel and the keys. The actions
 * are the page's (`main.ts`); this file only listens.
 */

export interface ControlsHost {
  /** Whether a run is open (the wheel zooms only then). */
  loaded(): boolean
  openFile(file: File): void
  toStart(): void
  back(): void
  step(): void
  toEnd(): void
  togglePlay(): void
  /** The scrubber moved to `position` (0 to the number of stops). */
  scrub(position: number): void
  speedChanged(): void
  layoutChanged(): void
  zoomChanged(): void
  scrolled(): void
  resized(): void
  /** Zooms by `factor` around the pane's x `offset` (the view's middle without one). */
  zoomBy(factor: number, offset?: number): void
  fit(): void
  clearSelection(): void
}

export interface ControlElements {
  file: HTMLInputElement
  canvas: HTMLElement
  scrub: HTMLInputElement
  play: HTMLButtonElement
  reset: HTMLElement
  back: HTMLElement
  step: HTMLElement
  end: HTMLElement
  speed: HTMLSelectElement
  layout: HTMLSelectElement
  zoom: HTMLSelectElement
}

export function initControls(ui: ControlElements, host: ControlsHost): void {
  ui.file.addEventListener('change', () => {
    const file = ui.file.files?.[0]
    if (file) host.openFile(file)
  })
  wireDrop(host)

  ui.reset.addEventListener('click', host.toStart)
  ui.back.addEventListener('click', host.back)
  ui.play.addEventListener('click', host.togglePlay)
  ui.step.addEventListener('click', host.step)
  ui.end.addEventListener('click', host.toEnd)
  ui.scrub.addEventListener('input', () => host.scrub(Number(ui.scrub.value)))
  ui.speed.addEventListener('change', host.speedChanged)
  ui.layout.addEventListener('change', host.layoutChanged)
  ui.canvas.addEventListener('scroll', host.scrolled)
  ui.zoom.addEventListener('change', host.zoomChanged)
  ui.canvas.addEventListener(
    'wheel',
    (ev) => {
      // Shift + wheel (or a sideways wheel) pans as the browser does; the wheel zooms.
      if (!host.loaded() || ev.shiftKey || Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) return
      ev.preventDefault()
      const rect = ui.canvas.getBoundingClientRect()
      host.zoomBy(Math.exp(-ev.deltaY * 0.002), ev.clientX - rect.left)
    },
    { passive: false },
  )
  window.addEventListener('resize', host.resized)
  wireKeys(host)
}

/** A file dropped anywhere on the page opens; the page shows it is a drop target meanwhile. */
function wireDrop(host: ControlsHost): void {
  let dragDepth = 0
  document.addEventListener('dragenter', (ev) => {
    ev.preventDefault()
    dragDepth++
    document.body.classList.add('dragging')
  })
  document.addEventListener('dragleave', () => {
    dragDepth = Math.max(0, dragDepth - 1)
    if (dragDepth === 0) document.body.classList.remove('dragging')
  })
  document.addEventListener('dragover', (ev) => ev.preventDefault())
  document.addEventListener('drop', (ev) => {
    ev.preventDefault()
    dragDepth = 0
    document.body.classList.remove('dragging')
    const file = ev.dataTransfer?.files[0]
    if (file) host.openFile(file)
  })
}

/** → ← step, space plays, Home / End, + - 0 zoom, Esc clears the selection (not while typing). */
function wireKeys(host: ControlsHost): void {
  document.addEventListener('keydown', (ev) => {
    const target = ev.target as HTMLElement
    if (target.tagName === 'INPUT' || target.tagName === 'SELECT') return
    if (ev.key === 'ArrowRight') host.step()
    else if (ev.key === 'ArrowLeft') host.back()
    else if (ev.key === ' ') {
      ev.preventDefault()
      host.togglePlay()
    } else if (ev.key === 'Home') host.toStart()
    else if (ev.key === 'End') host.toEnd()
    else if (ev.key === '+' || ev.key === '=') host.zoomBy(1.5)
    else if (ev.key === '-' || ev.key === '_') host.zoomBy(1 / 1.5)
    else if (ev.key === '0') host.fit()
    else if (ev.key === 'Escape') host.clearSelection()
  })
}
