import { describe, expect, it } from 'vitest';
import { parseDimension, parseSearchSpace, spaceFromFlag } from '../../../src/strategy/search-space.js';

describe('search space', () => {
  it('reads int, real, log and cat dimensions', () => {
    expect(parseDimension('fast', 'int(5,50)')).toEqual({ kind: 'int', low: 5, high: 50 });
    expect(parseDimension('exits.stopLoss', 'real(0.01,0.1)')).toEqual({
      kind: 'real',
      low: 0.01,
      high: 0.1,
    });
    expect(parseDimension('x', 'log(0.001,0.1)')).toEqual({ kind: 'log', low: 0.001, high: 0.1 });
    expect(parseDimension('m', 'cat(a,b)')).toEqual({ kind: 'cat', choices: ['a', 'b'] });
  });

  it('refuses a bad dimension naming it and the fix', () => {
    expect(() => parseDimension('fast', 'int(50,5)')).toThrow(
      'fast=int(50,5): low must be below high; write fast=int(5,50)',
    );
    expect(() => parseDimension('fast', 'int(1.5,5)')).toThrow(
      'fast=int(1.5,5): int bounds are whole numbers',
    );
    expect(() => parseDimension('sl', 'log(0,0.1)')).toThrow('sl=log(0,0.1): a log dimension is above 0');
    expect(() => parseDimension('fast', 'range(1,2)')).toThrow('fast=range(1,2): a dimension is int(5,50)');
    expect(() => parseDimension('m', 'cat(a)')).toThrow('m=cat(a): cat(...) needs two choices or more');
    expect(() => parseSearchSpace({ fast: 5 }, 'searchSpace')).toThrow(
      "searchSpace: fast must be text such as 'int(5,50)'",
    );
  });

  it('keeps the declared groups --space names and puts its dimensions over the declared ones', () => {
    const declared = parseSearchSpace(
      { fast: 'int(5,50)', 'exits.stopLoss': 'real(0.02,0.2)', 'protections.cooldownAfterStop': 'int(1,5)' },
      't',
    );
    expect(Object.keys(spaceFromFlag(declared, undefined))).toEqual([
      'fast',
      'exits.stopLoss',
      'protections.cooldownAfterStop',
    ]);
    expect(spaceFromFlag(declared, 'exits fast=int(10,20)')).toEqual({
      'exits.stopLoss': { kind: 'real', low: 0.02, high: 0.2 },
      fast: { kind: 'int', low: 10, high: 20 },
    });
    expect(() => spaceFromFlag(declared, 'roi')).toThrow(
      '--space roi: name a group (params, exits, protections, all)',
    );
    expect(() => spaceFromFlag({}, '')).toThrow('the search space is empty');
  });
});
