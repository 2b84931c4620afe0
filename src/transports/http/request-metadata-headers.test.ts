import { describe, expect, it } from 'vitest';
import type { JsonRpcRequest } from '../../protocol/jsonrpc.js';
import {
  metadataMismatch,
  protocolVersionMismatch,
  requestMetadataHeaders,
} from './request-metadata-headers.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const SCHEMA = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    count: { type: 'integer', 'x-mcp-header': 'Count' },
    flag: { type: 'boolean', 'x-mcp-header': 'Flag' },
    deep: { type: 'object', properties: { id: { type: 'string', 'x-mcp-header': 'Id' } } },
    list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } },
  },
};
const call = (args: Record<string, unknown>): JsonRpcRequest => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'q', arguments: args as never, _meta: META },
});

describe('request metadata headers, client side', () => {
  it('mirrors method, name, version and x-mcp-header arguments', () => {
    expect(
      requestMetadataHeaders(
        call({ region: 'ü', count: 3, flag: false, deep: { id: 'x' }, list: ['a'] }),
        SCHEMA,
      ),
    ).toEqual({
      'mcp-method': 'tools/call',
      'mcp-protocol-version': '2026-07-28',
      'mcp-name': 'q',
      'Mcp-Param-Region': '=?base64?w7w=?=',
      'Mcp-Param-Count': '3',
      'Mcp-Param-Flag': 'false',
      'Mcp-Param-Id': 'x',
    });
  });

  it('leaves out the headers of absent and null arguments, and Mcp-Name where the method has none', () => {
    expect(requestMetadataHeaders(call({ region: null }), SCHEMA)).toEqual({
      'mcp-method': 'tools/call',
      'mcp-protocol-version': '2026-07-28',
      'mcp-name': 'q',
    });
    const list: JsonRpcRequest = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: META } };
    expect(requestMetadataHeaders(list)).toEqual({
      'mcp-method': 'tools/list',
      'mcp-protocol-version': '2026-07-28',
    });
    const read: JsonRpcRequest = {
      jsonrpc: '2.0',
      id: 3,
      method: 'resources/read',
      params: { uri: 'file:///ä', _meta: META },
    };
    expect(requestMetadataHeaders(read)['mcp-name']).toBe(`=?base64?${btoa('file:///\u00c3\u00a4')}?=`);
  });
});

describe('request metadata headers, server side', () => {
  it('accepts what the client side builds', () => {
    const message = call({ region: 'ü', count: 3, flag: true, deep: { id: ' x ' } });
    const headers = new Headers(requestMetadataHeaders(message, SCHEMA));
    expect(protocolVersionMismatch(headers, '2026-07-28')).toBeUndefined();
    expect(metadataMismatch(headers, message, SCHEMA)).toBeUndefined();
  });

  it('compares integers numerically and refuses a header whose argument is absent', () => {
    const headers = new Headers({ 'mcp-method': 'tools/call', 'mcp-name': 'q', 'mcp-param-count': '3.0' });
    expect(metadataMismatch(headers, call({ count: 3 }), SCHEMA)).toBeUndefined();
    expect(metadataMismatch(headers, call({}), SCHEMA)).toBe(
      'Header mismatch: Mcp-Param-Count header value "3.0" does not match body value null',
    );
    expect(metadataMismatch(headers, call({ count: 4 }), SCHEMA)).toMatch(/Mcp-Param-Count/);
  });

  it('names the header that is missing or differs', () => {
    const headers = new Headers({ 'mcp-method': 'tools/call', 'mcp-name': 'q' });
    expect(protocolVersionMismatch(headers, '2026-07-28')).toBe(
      'Header mismatch: the MCP-Protocol-Version header is required',
    );
    expect(metadataMismatch(headers, call({ region: 'a' }), SCHEMA)).toBe(
      'Header mismatch: the Mcp-Param-Region header is required',
    );
    headers.set('mcp-name', 'other');
    expect(metadataMismatch(headers, call({}), SCHEMA)).toBe(
      'Header mismatch: Mcp-Name header value "other" does not match body value "q"',
    );
  });
});
