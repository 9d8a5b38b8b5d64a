// The trading state of a bot (DESIGN principle 3), declared at the bottom because the risk layer decides it
// and the journal stores it: ACTIVE trades freely, REDUCING only reduces positions, HALTED places nothing.
export type TradingState = 'ACTIVE' | 'REDUCING' | 'HALTED';
