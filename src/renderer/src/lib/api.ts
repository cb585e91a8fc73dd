import type { LensApi } from '../../../shared/routes'
import { createHttpApi } from './http-api'
import { fromBridge } from './ipc-api'

export const api: LensApi = window.lensIpc ? fromBridge(window.lensIpc) : createHttpApi()
