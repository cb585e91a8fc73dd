/** How many models the engine keeps open (sessions loaded); beyond it the least recently used idle one is closed. */
export const MAX_OPEN_MODELS = 4
