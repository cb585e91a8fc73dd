/** How many models the engine keeps open (sessions loaded); beyond it the least recently used idle one is closed. */
export const MAX_OPEN_MODELS = 4

/** Files above this size are refused before reading (the bundled models are under 10 MB); browser mode refuses larger uploads as they arrive. */
export const MAX_MODEL_BYTES = 512 * 1024 * 1024
