import { closeSync, openSync, readSync } from 'node:fs'
import { externalRefs, inFolder } from '../formats/model-bytes'
import { create, GraphProtoSchema, TensorProto_DataLocation, type TensorProto } from '../onnx-proto'
import { ContributionTapError } from './taps'

/**
 * The few weights the contribution taps read (W_V, b_V, W_O, γ, β), from a graph read without
 * its weights (model-bytes.ts readSlimModel): each external tensor names a file in the model's
 * folder (an .onnx_data file, or the .onnx itself where readSlimModel left the raw bytes in it), an
 * offset and a length. The location goes through the same folder check as every external data
 * file the app opens (inFolder), and checkExternalData has already held each length to its file.
 */
export function externalTensorReader(dir: string): (t: TensorProto) => TensorProto {
  return (t) => {
    if (t.dataLocation !== TensorProto_DataLocation.EXTERNAL) return t
    // where its bytes lie, as the loader reads it (a missing length: the tensor's size)
    const { location, offset, length } = externalRefs(create(GraphProtoSchema, { initializer: [t] }))[0]
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0)
      throw new ContributionTapError(`its weight ${t.name} names no offset and length in ${location}`)
    const raw = new Uint8Array(length)
    const fd = openSync(inFolder(dir, location, t.name), 'r')
    try {
      let got = 0
      while (got < length) {
        const r = readSync(fd, raw, got, length - got, offset + got)
        if (r === 0) throw new ContributionTapError(`${location} ends before its weight ${t.name} does`)
        got += r
      }
    } finally {
      closeSync(fd)
    }
    return { ...t, rawData: raw, externalData: [], dataLocation: TensorProto_DataLocation.DEFAULT }
  }
}
