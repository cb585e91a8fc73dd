import type { LensApi } from '../../../shared/api'
import { createHttpApi } from './http-api'

export const api: LensApi = window.lensApi ?? createHttpApi()
