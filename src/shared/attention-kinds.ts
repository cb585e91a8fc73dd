/**
 * The attention kinds a model can declare. In a module of its own so that both the API types
 * (api.ts) and the figure schema (figure.ts) can use it without importing each other.
 */
export const ATTENTION_KINDS = ['none', 'bahdanau', 'luong-dot', 'luong-general', 'luong-concat', 'local-m', 'local-p', 'transformer'] as const
export type AttentionKind = (typeof ATTENTION_KINDS)[number]
