import { articleLocator } from '../common.descriptions';
import { getOperation } from '../records';

export const { properties, prepare } = getOperation('article', articleLocator);
