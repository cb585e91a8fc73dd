/**
 * The names of the models the page knows, by id (the model list and every model opened), for
 * what is drawn outside the model's own view: an exported figure's caption names a Hugging Face
 * upload by its folder's name ("marian-en-fr"), not by its opaque id, as the CLI does.
 */
const names = new Map<string, string>()

export function rememberModelName(id: string, name: string): void {
  names.set(id, name)
}

/** The model's name, or undefined for an id the page has not seen (the caption then falls back to the id's file name). */
export function modelNameFor(id: string | null): string | undefined {
  return id === null ? undefined : names.get(id)
}
