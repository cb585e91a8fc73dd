/// <reference types="svelte" />
/// <reference types="vite/client" />
import type { LensApi } from '../../shared/api'

declare global {
  interface Window {
    /** Set by the Electron preload; absent in browser mode. */
    lensApi?: LensApi
  }
}
