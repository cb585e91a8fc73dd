import { describe, expect, it } from 'vitest'
import { folderFilesToSend } from '../../../src/shared/hf-folder-files'

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
