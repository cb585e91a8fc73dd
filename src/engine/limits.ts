/** How many models the engine keeps open (sessions loaded); beyond it the least recently used idle one is closed. */
export const MAX_OPEN_MODELS = 4

/**
 * One ONNX protobuf file cannot reach 2 GiB (protobuf's limit on a message; Node's readFile has
 * the same one): a larger model keeps its weights in external data files, which have no such
 * limit. There is no other cap on a model's size: src/engine/memory.ts refuses one that will not
 * fit the memory the machine has.
 */
export const MAX_PROTOBUF_BYTES = 2 ** 31 - 1
