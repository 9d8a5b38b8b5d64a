// The control API described once: the JSON Schemas the routes validate their bodies with are the ones
// the OpenAPI document publishes (served at /api/openapi.json, checked into docs/dashboard-openapi.json).
import { CONTROL_ACTIONS } from '../store/control.js';

/** The body of every control call: why (journaled), and for a flatten optionally one symbol. */
export const ControlBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['reason'],
  properties: {
    reason: {
      type: 'string',
      minLength: 1,
      maxLength: 500,
      description: 'why the action is taken; journaled with the action and who asked',
    },
    symbol: {
      type: 'string',
      pattern: '^[A-Z0-9]{1,32}$',
      description: 'flatten only: the one symbol to sell (default every symbol of the bot)',
    },
  },
} as const;

/** The query of GET /api/equity: `since`, a venue time in whole Unix seconds. */
export const EquityQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: { since: { type: 'string', pattern: '^\\d{1,12}$' } },
} as const;

const decimal = { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$', description: 'a decimal string' } as const;
const nullableDecimal = { ...decimal, nullable: true } as const;
const error = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'string', description: 'a sentence that says what to do' } },
} as const;

const BotSchema = {
  type: 'object',
  description:
    'one bot: its strategy, trading state, portfolio (from the pipeline), recent orders, fills, denials and control actions. Money is decimal strings. Without a configured token the state is redacted (no params, no order ids, no identities)',
  required: ['name', 'strategy', 'symbols', 'tradingState', 'paused', 'positions'],
  properties: {
    name: { type: 'string' },
    strategy: { type: 'string' },
    params: { type: 'object', additionalProperties: true },
    symbols: { type: 'array', items: { type: 'string' } },
    interval: { type: 'string' },
    quoteCoin: { type: 'string' },
    capital: decimal,
    running: { type: 'boolean' },
    tradingState: {
      type: 'string',
      enum: ['ACTIVE', 'PAUSED', 'REDUCING', 'HALTED', 'unknown'],
      description: 'PAUSED: paused by the operator, no new entries (denied PAUSED); exits still run',
    },
    paused: {
      type: 'boolean',
      description: 'the operator paused the bot; true under HALTED too, which a re-arm turns into PAUSED',
    },
    equity: nullableDecimal,
    cash: nullableDecimal,
    realisedPnl: nullableDecimal,
    unrealisedPnl: nullableDecimal,
    fees: nullableDecimal,
    net: { ...nullableDecimal, description: 'realised + unrealised PnL - fees' },
    counts: {
      type: 'object',
      description: "the deployment's counts (the journal's, across restarts); sinceStart: this start's",
      additionalProperties: true,
    },
    positions: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          symbol: { type: 'string' },
          quantity: decimal,
          baseCoin: { type: 'string' },
          avgPrice: decimal,
          mark: { ...nullableDecimal, description: "the venue's last traded price" },
          markTs: { type: 'integer', nullable: true, description: 'venue time of the mark, ms' },
          unrealisedPnl: decimal,
          realisedPnl: decimal,
          fees: decimal,
        },
      },
    },
    dust: {
      type: 'array',
      description:
        "positions below the venue's minimum order quantity (no order can sell them alone), shown apart from positions; absent when none",
      items: {
        type: 'object',
        properties: { symbol: { type: 'string' }, baseCoin: { type: 'string' }, quantity: decimal },
      },
    },
    margin: {
      type: 'object',
      description:
        "a MARGIN bot's own account of its loans at the venue's now (docs/margin.md); absent for SPOT: loans per coin, interest owed and paid, the risk ratio and its state against warningRiskRatio",
      properties: {
        loans: {
          type: 'array',
          items: {
            type: 'object',
            properties: { coin: { type: 'string' }, borrowed: decimal, basis: decimal, interest: decimal },
          },
        },
        interest: decimal,
        interestPaid: decimal,
        riskRatio: decimal,
        warningRiskRatio: decimal,
        state: { type: 'string', enum: ['normal', 'warning', 'liquidation'] },
      },
    },
    rules: {
      type: 'array',
      description: 'exits and protections in force (the strategy declaration merged with the bot YAML)',
      items: {
        type: 'object',
        properties: {
          kind: { type: 'string', enum: ['exit', 'protection'] },
          name: { type: 'string' },
          value: { type: 'string' },
        },
      },
    },
    exitBlocked: {
      type: 'object',
      description:
        "exits denied EXIT_BLOCKED because the bot's own resting limit sells hold the position (absent when none was): how many, and the first, with the order that blocked it (its id and sentence only with a token)",
      properties: {
        count: { type: 'integer' },
        first: {
          type: 'object',
          properties: {
            ts: { type: 'integer' },
            symbol: { type: 'string' },
            tag: { type: 'string', description: 'the exit that was blocked (stop_loss, trailing_stop ...)' },
            blockedBy: {
              type: 'string',
              description: 'clientOid of the resting order that held the position',
            },
            message: { type: 'string' },
          },
        },
      },
    },
    locks: {
      type: 'array',
      description: 'protection locks on new entries in force now',
      items: {
        type: 'object',
        properties: {
          protection: { type: 'string' },
          symbol: { type: 'string' },
          until: { type: 'string' },
          reason: { type: 'string' },
        },
      },
    },
    drift: {
      type: 'object',
      description:
        "the newest drift check (live against the replay of the venue's candles); unexplained above 0 is an alarm",
      properties: {
        from: { type: 'string' },
        to: { type: 'string' },
        differences: { type: 'integer' },
        unexplained: { type: 'integer' },
        alarms: { type: 'array', items: { type: 'string' } },
      },
    },
    openOrders: { type: 'array', items: { type: 'object' } },
    feeds: { type: 'array', items: { type: 'object' } },
    orders: { type: 'array', items: { type: 'object' } },
    fills: { type: 'array', items: { type: 'object' } },
    denials: {
      type: 'array',
      items: {
        type: 'object',
        properties: { code: { type: 'string' }, message: { type: 'string' } },
      },
    },
    controls: { type: 'array', items: { type: 'object' } },
  },
} as const;

const bearer = [{ bearer: [] }];
const name = { name: 'name', in: 'path', required: true, schema: { type: 'string' } } as const;

/** An answer of `{ error }`, and when it comes. */
const refusal = (description: string) => ({
  description,
  content: { 'application/json': { schema: error } },
});
/** An answer of one bot. */
const oneBot = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Bot' } } },
});

const DESCRIPTIONS: Record<(typeof CONTROL_ACTIONS)[number], string> = {
  pause: 'no new entries: the gate denies them with PAUSED; orders that reduce a position still run',
  resume: 'new entries again (a HALTED bot refuses it: resume does not lift a halt, re-arm does)',
  flatten:
    'pause new entries (until resumed), then sell every position of the bot (or `symbol`) at market, through the risk gate (a HALTED bot refuses it: re-arm first)',
  halt: 'the kill switch: HALTED, nothing is placed until re-armed',
  rearm: 'HALTED (or REDUCING) -> ACTIVE; only ever by this explicit action',
};

/** The read paths: every bot, one bot, the equity curves, the live stream. */
const READ_PATHS = {
  '/api/bots': {
    get: {
      summary: 'every bot, with the venue clock and session',
      security: bearer,
      responses: {
        '200': {
          description: 'the bots',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  readOnly: { type: 'boolean' },
                  now: { type: 'integer', description: 'venue time, Unix ms' },
                  session: { type: 'object', nullable: true },
                  bots: { type: 'array', items: { $ref: '#/components/schemas/Bot' } },
                  deploymentBook: {
                    type: 'object',
                    description:
                      'fills of the account no open order of a bot matched (bots sharing a symbol, fills without ids): booked to no bot rather than lost, with the net they hold per symbol',
                    properties: {
                      fills: { type: 'integer' },
                      positions: {
                        type: 'array',
                        items: {
                          type: 'object',
                          properties: {
                            symbol: { type: 'string' },
                            baseCoin: { type: 'string' },
                            quantity: { type: 'string', description: 'decimal, base coin' },
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
        '401': refusal('no or a wrong bearer token'),
      },
    },
  },
  '/api/bots/{name}': {
    get: {
      summary: 'one bot',
      security: bearer,
      parameters: [name],
      responses: {
        '200': oneBot('the bot'),
        '401': refusal('no or a wrong bearer token'),
        '404': refusal('no such bot'),
      },
    },
  },
  '/api/equity': {
    get: {
      summary:
        'the equity curve of every bot (up to 2000 points each): how a page without the live stream (read-only) draws it',
      security: bearer,
      parameters: [
        {
          name: 'since',
          in: 'query',
          required: false,
          schema: EquityQuerySchema.properties.since,
          description:
            'only points at or after this venue time (Unix seconds); the last point of a second is updated in place, so ask from the last one you have',
        },
      ],
      responses: {
        '200': {
          description: 'the curves by bot',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  equity: {
                    type: 'object',
                    additionalProperties: {
                      type: 'array',
                      items: {
                        type: 'object',
                        properties: {
                          time: { type: 'integer', description: 'venue time, Unix seconds' },
                          value: decimal,
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
        '400': refusal('since is not a whole number'),
        '401': refusal('no or a wrong bearer token'),
      },
    },
  },
  '/api/events': {
    get: {
      summary:
        'the live stream (server-sent events): `state` (the bots, as GET /api/bots), `equity` (new points), `log` (log lines)',
      security: bearer,
      responses: {
        '200': { description: 'text/event-stream' },
        '401': refusal('no or a wrong bearer token'),
        '403': refusal('read-only dashboard: no stream without a token'),
      },
    },
  },
};

/** A control path per action: POST /api/bots/{name}/<action>. */
function controlPaths(): Record<string, unknown> {
  return Object.fromEntries(
    CONTROL_ACTIONS.map((action) => [
      `/api/bots/{name}/${action}`,
      {
        post: {
          summary: `${action} a bot`,
          description: `${DESCRIPTIONS[action]}. Journaled with who (the token's fingerprint) and why, and emitted as an event.`,
          security: bearer,
          parameters: [name],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ControlBodySchema } },
          },
          responses: {
            '200': {
              description: 'done: what the action did (`done`), and the bot as it is now',
              content: {
                'application/json': {
                  schema: {
                    allOf: [
                      { $ref: '#/components/schemas/Bot' },
                      {
                        type: 'object',
                        properties: {
                          done: { type: 'string', description: 'what the action did, in words' },
                        },
                      },
                    ],
                  },
                },
              },
            },
            '400': refusal('the body is invalid'),
            '401': refusal('no or a wrong bearer token'),
            '403': refusal('read-only dashboard (no token configured) or a foreign Origin'),
            '404': refusal('no such bot'),
            ...(action === 'flatten' || action === 'resume'
              ? { '409': refusal('the bot is HALTED: re-arm it first') }
              : {}),
          },
        },
      },
    ]),
  );
}

/** The OpenAPI 3.0 description of the dashboard's API. */
export function openApiDocument(): Record<string, unknown> {
  return {
    openapi: '3.0.3',
    info: {
      title: 'tradebot dashboard and control API',
      version: '1',
      description:
        'Served by the daemon when `dashboard.enabled` is true (docs/dashboard.md). Every call but GET / and this document needs `Authorization: Bearer <token>` when a token is configured; without one the API is read-only (GETs answer a redacted state, every POST is refused with 403). POSTs from a foreign Origin are refused (CSRF).',
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { Bot: BotSchema, ControlBody: ControlBodySchema, Error: error },
    },
    paths: { ...READ_PATHS, ...controlPaths() },
  };
}
