import type { AlignmentBoard } from '../../../shared/alignment'

/**
 * The gold set last scored in the Alignment score tab: the heads view ranks a Transformer's heads
 * by their AER on it ("Which head aligns best?") while it is loaded.
 */
export const goldBoard = $state<{ board: AlignmentBoard | null }>({ board: null })

/** A model's heads ranked by AER on the loaded gold set (best first), or null when it was not scored. */
export function headsByAer(modelId: string): { layer: number; head: number; aer: number }[] | null {
  const row = goldBoard.board?.models.find((x) => x.modelId === modelId)
  if (!row?.heads) return null
  return row.heads.aer.flatMap((r, layer) => r.map((aer, head) => ({ layer, head, aer }))).sort((a, b) => a.aer - b.aer)
}
