import { clientLocator } from '../common.descriptions';
import { getOperation } from '../records';

export const { properties, prepare } = getOperation('client', clientLocator);
