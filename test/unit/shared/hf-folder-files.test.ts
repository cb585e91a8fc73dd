import { describe, expect, it } from 'vitest'
import { folderFilesToSend, folderVariantsOf } from '../../../src/shared/hf-folder-files'

describe('the files of a Hugging Face folder that browser mode sends up', () => {
  it('sends the configs, the tokenizer and one precision of the ONNX files (fp32 where there is one), the merged decoder alone', () => {
    const paths = [
      'opus-mt-en-fr/config.json',
      'opus-mt-en-fr/generation_config.json',
      'opus-mt-en-fr/tokenizer.json',
      'opus-mt-en-fr/README.md',
      'opus-mt-en-fr/pytorch_model.bin',
      'opus-mt-en-fr/onnx/encoder_model.onnx',
      'opus-mt-en-fr/onnx/encoder_model_quantized.onnx',
      'opus-mt-en-fr/onnx/decoder_model_merged.onnx',
      'opus-mt-en-fr/onnx/decoder_model_merged_quantized.onnx',
      'opus-mt-en-fr/onnx/decoder_model.onnx',
    ]
    expect(folderFilesToSend(paths)).toEqual([
      'opus-mt-en-fr/config.json',
      'opus-mt-en-fr/generation_config.json',
      'opus-mt-en-fr/tokenizer.json',
      'opus-mt-en-fr/onnx/encoder_model.onnx',
      'opus-mt-en-fr/onnx/decoder_model_merged.onnx',
    ])
  })

  it('takes a quantized folder as it is when it has no fp32 files', () => {
    const paths = ['m/config.json', 'm/source.spm', 'm/target.spm', 'm/vocab.json', 'm/onnx/encoder_model_q4.onnx', 'm/onnx/decoder_model_merged_q4.onnx']
    expect(folderFilesToSend(paths)).toEqual(paths)
  })
})

describe('precisions and external data (issue 39)', () => {
  it('takes the most precise variant, not the first by name: fp16 before _quantized, q8 before q4', () => {
    const paths = [
      'm/config.json',
      'm/onnx/encoder_model_quantized.onnx',
      'm/onnx/decoder_model_merged_quantized.onnx',
      'm/onnx/encoder_model_q4.onnx',
      'm/onnx/decoder_model_merged_q4.onnx',
    ]
    expect(folderFilesToSend(paths)).toEqual(['m/config.json', 'm/onnx/encoder_model_quantized.onnx', 'm/onnx/decoder_model_merged_quantized.onnx'])
    const withFp16 = [...paths, 'm/onnx/encoder_model_fp16.onnx', 'm/onnx/decoder_model_merged_fp16.onnx']
    expect(folderFilesToSend(withFp16)).toEqual(['m/config.json', 'm/onnx/encoder_model_fp16.onnx', 'm/onnx/decoder_model_merged_fp16.onnx'])
    expect(folderFilesToSend(withFp16, 'q4')).toEqual(['m/config.json', 'm/onnx/encoder_model_q4.onnx', 'm/onnx/decoder_model_merged_q4.onnx'])
  })

  it("sends each part's external data files with it, and not another precision's", () => {
    const paths = [
      'nllb/config.json',
      'nllb/encoder_model.onnx',
      'nllb/encoder_model.onnx_data',
      'nllb/decoder_model.onnx',
      'nllb/decoder_model.onnx_data',
      'nllb/decoder_with_past_model.onnx',
      'nllb/decoder_with_past_model.onnx_data',
      'nllb/encoder_model_fp16.onnx',
      'nllb/encoder_model_fp16.onnx_data',
    ]
    expect(folderFilesToSend(paths)).toEqual([
      'nllb/config.json',
      'nllb/encoder_model.onnx',
      'nllb/decoder_model.onnx',
      'nllb/decoder_with_past_model.onnx',
      'nllb/encoder_model.onnx_data',
      'nllb/decoder_model.onnx_data',
      'nllb/decoder_with_past_model.onnx_data',
    ])
  })

  it("lists a folder's precisions, most precise first, with the bytes each would send (external data included, the configs not)", () => {
    const files = [
      { path: 'm/config.json', size: 5 },
      { path: 'm/tokenizer.json', size: 7 },
      { path: 'm/onnx/encoder_model_quantized.onnx', size: 100 },
      { path: 'm/onnx/decoder_model_merged_quantized.onnx', size: 200 },
      { path: 'm/onnx/encoder_model.onnx', size: 10 },
      { path: 'm/onnx/encoder_model.onnx_data', size: 1000 },
      { path: 'm/onnx/decoder_model_merged.onnx', size: 20 },
      { path: 'm/onnx/decoder_model_merged.onnx_data', size: 2000 },
      { path: 'm/onnx/decoder_model.onnx', size: 999 },
    ]
    expect(folderVariantsOf(files)).toEqual([
      { dtype: 'fp32', bytes: 3030 },
      { dtype: 'q8', bytes: 300 },
    ])
  })
})
