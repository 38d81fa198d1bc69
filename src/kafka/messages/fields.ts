/** Fields many response bodies share (./responses.ts, ./group-responses.ts, ./streams-responses.ts). */
import type {FieldSpec} from '../../core/records/spec.js'

export const ThrottleTimeMs: FieldSpec = {name: 'ThrottleTimeMs', type: 'int32', versions: '0+'}
export const ErrorCode: FieldSpec = {name: 'ErrorCode', type: 'int16', versions: '0+'}
export const ErrorMessage: FieldSpec = {name: 'ErrorMessage', type: 'string', versions: '0+', nullableVersions: '0+', default: 'null'}
export const AuthorizedOperations: FieldSpec = {name: 'AuthorizedOperations', type: 'int32', versions: '0+', default: -2147483648}
