// The ONNX schema: onnx.proto of ONNX 1.20 (IR version 13) compiled by protoc-gen-es (onnx-buf),
// read and written by the protobuf-es runtime. protobuf-es keeps the fields a schema does not know
// ($unknown) through a decode and an encode, so a file from a newer ONNX survives graph cutting
// with everything it carries.
export * from 'onnx-buf'
export { create, fromBinary, toBinary } from '@bufbuild/protobuf'
